"""Online inference of validation patterns from the index (Auto-Validate §2.3-4)."""
