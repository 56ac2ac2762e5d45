// Placeholder until the Schema target lands.
