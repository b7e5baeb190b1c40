// placeholder until the first spec source lands
