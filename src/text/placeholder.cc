// placeholder until the first text source lands
