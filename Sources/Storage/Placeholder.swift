// Placeholder until the Storage target lands.
