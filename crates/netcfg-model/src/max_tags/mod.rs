//! The maximum-tag calculator: how many tags a network can carry at a rate.
//!
//! (Being built: see docs/max-tags.md once it lands.)
