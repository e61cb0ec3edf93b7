//! Protocol behaviour of the real binary: handshake, errors, stop/isready during a search.
