//! XDG paths: config search order, state and data directories.
