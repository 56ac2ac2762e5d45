// Placeholder until the BBS target lands.
