"""Vision primitives shared by the task modules: colour classes, localisation, morphology."""
