//! The bidirectional Clos k-ary n-tree of seed 001 §II (Fig. 2): 2n-1 stages of k^(n-1) switches of
//! radix 2k, k^n nodes below the first stage and k^n above the last, built as a MiKANT whose two
//! groups share a centre stage (`mikant.rs`). Routing is up*/down*: up to the destination group's
//! nearest common ancestor or to the centre, then the unique way down; upward choices are adaptive by
//! default (the contract's default where a topology offers choice), `route=det` takes port k + T_L as
//! Algorithm 1 does, which is how seed 001 §V-B routes the Clos in Fig. 9.

use super::Topology;
use super::mikant::MirroredTree;
use crate::spec::Entry;

/// Registry line.
pub const ENTRY: Entry<Box<dyn Topology>> = Entry {
    name: "clos",
    keys: &["k", "n", "route"],
    help: "bidirectional Clos k-ary n-tree: 2n-1 stages, 2k^n nodes; route=adaptive | det (seed 001)",
    build: |p| Ok(Box::new(MirroredTree::from_params(p, true, "adaptive")?)),
};
