"""memtui's core library: locations, parsing, scanning and safe edits. No UI imports here."""
