"""Trust: policy (roles, risk, confinement) and the pins of what a person allowed to run without
confirmation (DESIGN §11)."""
