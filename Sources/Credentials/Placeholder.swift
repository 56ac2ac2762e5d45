// Placeholder until the Credentials target lands.
