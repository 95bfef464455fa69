"""mcnemar."""
