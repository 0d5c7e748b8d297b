"""Web Push to a person's devices, reminders and safe defaults for unanswered questions."""
