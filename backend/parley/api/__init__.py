"""HTTP routes: thin wrappers that parse, authorise, call a service and shape the reply."""
