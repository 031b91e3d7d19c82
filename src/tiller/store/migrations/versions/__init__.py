"""One module a schema revision, oldest first by `down_revision`."""
