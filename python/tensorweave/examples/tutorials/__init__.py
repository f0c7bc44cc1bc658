"""tw.examples.tutorials."""
