//! One function per command, each taking its parsed flags (`super::args`), laying them over its
//! config through `super::overlay`, preparing its outputs, calling the library and printing.

pub(super) mod campaign;
pub(super) mod docs;
pub(super) mod generate;
pub(super) mod load_latency;
pub(super) mod run;
pub(super) mod topology;
pub(super) mod trace;
