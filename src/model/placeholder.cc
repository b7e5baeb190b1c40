// placeholder until the first model source lands
