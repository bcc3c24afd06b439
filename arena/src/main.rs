//! The `arena` binary: runs and scores matches between engines.

fn main() {}
