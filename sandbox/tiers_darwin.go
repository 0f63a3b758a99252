package sandbox

// autoTiers are the sandboxes mode Auto tries, in order.
func autoTiers() []Mode { return []Mode{Seatbelt} }

// noTier says why mode Auto has no sandbox to try.
func noTier() string { return "" }
