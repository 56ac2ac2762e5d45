print("badge-service: not built yet")
