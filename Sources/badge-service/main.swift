print("badge-service: wiring in progress")
