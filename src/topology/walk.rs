//! Walks over a topology's wiring and routing function: the wiring invariants the engine relies on,
//! where nodes are ejected, switch distances by breadth-first search, and a route followed hop by hop.
//! Used by tests, the distance tables of UGAL and LBR, and the graph metrics.

use super::{Endpoint, OneWay, RouteChoice, Topology};
use std::collections::VecDeque;

/// Checks that the wiring is symmetric (where links are bidirectional), that every input buffer has at
/// most one feeder, and that every node hangs where it says and is ejected somewhere: the invariants the
/// engine relies on. Returns a description of the first violation.
pub fn check_wiring(topo: &dyn Topology) -> Result<(), String> {
    let mut port_start = Vec::with_capacity(topo.switches() as usize + 1);
    port_start.push(0u64);
    for sw in 0..topo.switches() {
        port_start.push(port_start[sw as usize] + u64::from(topo.ports(sw)));
    }
    let mut feeders = vec![0u8; port_start[topo.switches() as usize] as usize];
    let mut ejected = vec![false; topo.nodes() as usize];
    for sw in 0..topo.switches() {
        for p in 0..topo.ports(sw) {
            let one_way = topo.one_way(sw, p) != OneWay::No;
            match topo.neighbour(sw, p) {
                Endpoint::Switch { switch, port } => {
                    if switch >= topo.switches() || port >= topo.ports(switch) {
                        return Err(format!("switch {sw} port {p} points outside the network"));
                    }
                    feeders[(port_start[switch as usize] + u64::from(port)) as usize] += 1;
                    let back = topo.neighbour(switch, port);
                    if !one_way
                        && back
                            != (Endpoint::Switch {
                                switch: sw,
                                port: p,
                            })
                    {
                        return Err(format!(
                            "switch {sw} port {p} -> switch {switch} port {port}, which points back to {back:?}"
                        ));
                    }
                }
                Endpoint::Node(n) => {
                    if n >= topo.nodes() || (!one_way && topo.node_attachment(n) != (sw, p)) {
                        return Err(format!(
                            "switch {sw} port {p} -> node {n}, which hangs elsewhere"
                        ));
                    }
                    ejected[n as usize] = true;
                }
                Endpoint::Unplugged => {}
            }
        }
    }
    for n in 0..topo.nodes() {
        let (sw, p) = topo.node_attachment(n);
        if sw >= topo.switches() || p >= topo.ports(sw) {
            return Err(format!("node {n} hangs outside the network"));
        }
        feeders[(port_start[sw as usize] + u64::from(p)) as usize] += 1;
        if topo.one_way(sw, p) == OneWay::No && topo.neighbour(sw, p) != Endpoint::Node(n) {
            return Err(format!(
                "node {n} says it hangs on switch {sw} port {p}, which disagrees"
            ));
        }
        if !ejected[n as usize] {
            return Err(format!("no port delivers to node {n}"));
        }
    }
    if let Some(i) = feeders.iter().position(|&f| f > 1) {
        let sw = port_start.partition_point(|&st| st <= i as u64) - 1;
        return Err(format!(
            "switch {sw} port {} is fed by {} channels",
            i as u64 - port_start[sw],
            feeders[i]
        ));
    }
    Ok(())
}

/// The switches whose ports deliver to each node (one for most families; a node is a sink, so
/// several ports may eject to it).
pub fn node_ejections(topo: &dyn Topology) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); topo.nodes() as usize];
    for sw in 0..topo.switches() {
        for p in 0..topo.ports(sw) {
            if let Endpoint::Node(n) = topo.neighbour(sw, p)
                && let Some(v) = out.get_mut(n as usize)
                && !v.contains(&sw)
            {
                v.push(sw);
            }
        }
    }
    out
}

/// Hop distances in switch-to-switch links from `from` to every switch, by breadth-first search along
/// the direction of the channels.
pub fn switch_distances(topo: &dyn Topology, from: u32) -> Vec<u32> {
    let mut dist = vec![u32::MAX; topo.switches() as usize];
    let mut queue = VecDeque::from([from]);
    dist[from as usize] = 0;
    while let Some(sw) = queue.pop_front() {
        for p in 0..topo.ports(sw) {
            if let Endpoint::Switch { switch, .. } = topo.neighbour(sw, p)
                && dist[switch as usize] == u32::MAX
            {
                dist[switch as usize] = dist[sw as usize] + 1;
                queue.push_back(switch);
            }
        }
    }
    dist
}

/// Follows the routing function from `src` to `dst` always taking the first choice (or, with `pick`,
/// the choice it returns), returning the number of links crossed, both node links included.
/// Fails if a route leads to an unplugged port, a wrong node or a loop.
pub fn trace_route(
    topo: &dyn Topology,
    src: u32,
    dst: u32,
    mut pick: impl FnMut(&[RouteChoice]) -> usize,
) -> Result<u32, String> {
    let (mut sw, mut in_port) = topo.node_attachment(src);
    let mut vc = 0;
    let mut links = 1;
    let mut choices = Vec::new();
    let limit = 4 * topo.switches() + 8;
    loop {
        choices.clear();
        topo.route(sw, in_port, vc, dst, &mut choices);
        if choices.is_empty() {
            return Err(format!("no route at switch {sw} towards node {dst}"));
        }
        let c = choices[pick(&choices).min(choices.len() - 1)];
        if c.vc >= topo.virtual_channels() {
            return Err(format!(
                "switch {sw} offers virtual channel {} of {}",
                c.vc,
                topo.virtual_channels()
            ));
        }
        links += 1;
        match topo.neighbour(sw, c.port) {
            Endpoint::Node(n) if n == dst => return Ok(links),
            Endpoint::Node(n) => return Err(format!("route to {dst} ended at node {n}")),
            Endpoint::Unplugged => {
                return Err(format!("switch {sw} routes to unplugged port {}", c.port));
            }
            Endpoint::Switch { switch, port } => {
                sw = switch;
                in_port = port;
                vc = c.vc;
            }
        }
        if links > limit {
            return Err(format!("route from {src} to {dst} loops"));
        }
    }
}
