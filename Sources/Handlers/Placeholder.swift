// Placeholder until the Handlers target lands.
