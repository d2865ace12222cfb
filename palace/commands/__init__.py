"""One module per `palace` subcommand, each with `add_parser` and `run`."""
