"""Messages: the `messages` table's one store (`parley.messages.store`)."""
