// Placeholder until the RequestAuth target lands.
