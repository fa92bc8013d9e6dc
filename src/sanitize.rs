//! Sanitising untrusted text before it reaches the terminal.
