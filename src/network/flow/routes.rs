//! Routes of the flow model: the topology's routing function walked from a source node to a
//! destination node, splitting the flow evenly over the candidate ports a switch offers (a fractional
//! path), with the head latency of its longest branch.
//!
//! Link ids are the flit engine's channel ids without crossbar paths: global switch port
//! `port_start[switch] + port` for the link leaving that port, `ports + node` for a node's injection
//! link. Routes are cached per (source rank, destination rank) while the cache is small (ranks and
//! entries bounded below); otherwise a route is computed for its message and its slot reused after.

use crate::error::{Error, Result};
use crate::network::NetworkModel;
use crate::topology::{Endpoint, RouteChoice, Topology};

/// Most ranks whose pairs get a cache slot each (`ranks²` u32 slots: 16 MiB at the bound).
const CACHE_RANKS: u32 = 2048;
/// Most (link, fraction) entries kept in cached routes (about 128 MiB); later routes are not cached.
const CACHE_ENTRIES: usize = 1 << 23;
/// No route / not in the frontier.
const NONE: u32 = u32::MAX;

/// One message's path: the links it crosses and the fraction of its phits crossing each.
#[derive(Debug, Clone, Default)]
pub(super) struct Route {
    /// (link id, fraction of the flow on it), in the order the walk first reached each link.
    pub links: Vec<(u32, f64)>,
    /// Cycles from the first phit leaving the source to the head being consumed, on the slowest
    /// branch: the sum of its links' latencies.
    pub latency: u64,
    /// Links of the shortest branch, node links included (what the flit engine reports per packet).
    pub hops: u32,
    /// Kept in the cache (never released).
    cached: bool,
}

/// A switch input the walk has reached, with the share of the flow arriving there.
#[derive(Debug, Clone, Copy)]
struct State {
    switch: u32,
    port: u32,
    vc: u32,
    share: f64,
    latency: u64,
}

/// Route computation and storage for one run.
pub(super) struct Routes<'a> {
    topo: &'a dyn Topology,
    /// First global port id of each switch.
    port_start: Vec<u32>,
    /// Total switch ports (the first injection link id).
    ports: u32,
    /// Head latency of each link id.
    link_latency: Vec<u64>,
    vcs: u32,
    routes: Vec<Route>,
    free: Vec<u32>,
    /// Route id per (source rank, destination rank), when ranks <= [`CACHE_RANKS`].
    cache: Vec<u32>,
    ranks: u32,
    cached_entries: usize,
    // Scratch, reused by every walk.
    state_index: Vec<u32>,
    link_share: Vec<f64>,
    link_touched: Vec<u32>,
    choices: Vec<RouteChoice>,
    choices_high: Vec<RouteChoice>,
    frontier: Vec<State>,
    next: Vec<State>,
}

impl<'a> Routes<'a> {
    /// Flattens the wiring into link ids and latencies under `model`'s timing (see the module doc of
    /// [`super`]).
    pub(super) fn new(topo: &'a dyn Topology, model: &NetworkModel, ranks: u32) -> Self {
        let switches = topo.switches();
        let mut port_start = Vec::with_capacity(switches as usize + 1);
        port_start.push(0u32);
        for sw in 0..switches {
            port_start.push(port_start[sw as usize] + topo.ports(sw));
        }
        let ports = port_start[switches as usize];
        let fly = u64::from(model.fly_time);
        let enter_switch = u64::from(model.routing_delay.max(model.allocation_delay));
        let crossbar = u64::from(model.output_queue_packets > 0);
        let mut link_latency = vec![0u64; (ports + topo.nodes()) as usize];
        for sw in 0..switches {
            for local in 0..topo.ports(sw) {
                let gp = (port_start[sw as usize] + local) as usize;
                let length = u64::from(topo.link_length(sw, local).max(1));
                link_latency[gp] = match topo.neighbour(sw, local) {
                    Endpoint::Switch { .. } => 1 + fly * length + enter_switch + crossbar,
                    Endpoint::Node(_) => 1 + fly * length + crossbar,
                    Endpoint::Unplugged => 0,
                };
            }
        }
        for node in 0..topo.nodes() {
            link_latency[(ports + node) as usize] = 1 + fly + enter_switch;
        }
        let vcs = topo.virtual_channels().max(1);
        let cache = if ranks <= CACHE_RANKS {
            vec![NONE; (ranks as usize) * (ranks as usize)]
        } else {
            Vec::new()
        };
        Routes {
            topo,
            port_start,
            ports,
            link_latency,
            vcs,
            routes: Vec::new(),
            free: Vec::new(),
            cache,
            ranks,
            cached_entries: 0,
            state_index: vec![NONE; (ports as usize) * (vcs as usize)],
            link_share: vec![0.0; (ports + topo.nodes()) as usize],
            link_touched: Vec::new(),
            choices: Vec::new(),
            choices_high: Vec::new(),
            frontier: Vec::new(),
            next: Vec::new(),
        }
    }

    /// Number of link ids (switch ports, then injection links).
    pub(super) fn links(&self) -> usize {
        self.link_latency.len()
    }

    /// Capacity of every link in phits per cycle: 1, except that with `allocation_delay` A a switch
    /// input queue sends a packet of P phits at most every P + A cycles (the next head is allocated
    /// only A cycles after the previous tail has left), so links into switches carry P / (P + A).
    pub(super) fn capacities(&self, model: &NetworkModel) -> Vec<f64> {
        let p = f64::from(model.packet_phits);
        let into_switch = p / (p + f64::from(model.allocation_delay));
        (0..self.links() as u32)
            .map(|l| {
                let to_switch = l >= self.ports || {
                    let sw = self.port_start.partition_point(|&s| s <= l) as u32 - 1;
                    let local = l - self.port_start[sw as usize];
                    matches!(self.topo.neighbour(sw, local), Endpoint::Switch { .. })
                };
                if to_switch { into_switch } else { 1.0 }
            })
            .collect()
    }

    /// The route with id `id`.
    #[inline]
    pub(super) fn get(&self, id: u32) -> &Route {
        &self.routes[id as usize]
    }

    /// The route id of a message from rank `from` on node `src` to rank `to` on node `dst`: cached,
    /// or computed now (then [`Routes::release`] it when its message is done).
    pub(super) fn route(&mut self, from: u32, to: u32, src: u32, dst: u32) -> Result<u32> {
        let slot = (from < self.ranks && to < self.ranks && !self.cache.is_empty())
            .then(|| from as usize * self.ranks as usize + to as usize);
        if let Some(s) = slot
            && self.cache[s] != NONE
        {
            return Ok(self.cache[s]);
        }
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.routes.push(Route::default());
                (self.routes.len() - 1) as u32
            }
        };
        let mut route = std::mem::take(&mut self.routes[id as usize]);
        let walked = self.walk(src, dst, &mut route);
        let entries = route.links.len();
        route.cached = false;
        if walked.is_ok()
            && let Some(s) = slot
            && self.cached_entries + entries <= CACHE_ENTRIES
        {
            route.cached = true;
            self.cached_entries += entries;
            self.cache[s] = id;
        }
        self.routes[id as usize] = route;
        if let Err(e) = walked {
            self.free.push(id);
            return Err(e);
        }
        Ok(id)
    }

    /// Gives back a route obtained from [`Routes::route`] once its message is done (cached routes stay).
    pub(super) fn release(&mut self, id: u32) {
        if !self.routes[id as usize].cached {
            self.free.push(id);
        }
    }

    /// Walks the routing function from node `src` to node `dst` into `out`.
    fn walk(&mut self, src: u32, dst: u32, out: &mut Route) -> Result<()> {
        let topo = self.topo;
        out.links.clear();
        out.latency = 0;
        out.hops = u32::MAX;
        let (sw, port) = topo.node_attachment(src);
        let inj = self.ports + src;
        self.add_share(inj, 1.0);
        self.frontier.clear();
        self.frontier.push(State {
            switch: sw,
            port,
            vc: 0,
            share: 1.0,
            latency: self.link_latency[inj as usize],
        });
        let limit = 4 * topo.switches() + 8;
        let mut depth = 1u32;
        let mut result = Ok(());
        while !self.frontier.is_empty() && result.is_ok() {
            depth += 1;
            if depth > limit {
                result = Err(format!("the route from node {src} to node {dst} loops"));
                break;
            }
            self.next.clear();
            let (mut low, mut high) = (
                std::mem::take(&mut self.choices),
                std::mem::take(&mut self.choices_high),
            );
            for i in 0..self.frontier.len() {
                let st = self.frontier[i];
                // Per-packet random tie-breaks (a torus's half-way rings, one salt bit per
                // dimension) are split evenly: half the flow as salt 0 routes it, half as salt !0.
                low.clear();
                topo.route_salted(st.switch, st.port, st.vc, dst, 0, &mut low);
                high.clear();
                topo.route_salted(st.switch, st.port, st.vc, dst, u32::MAX, &mut high);
                result = if low == high {
                    self.expand(st, &low, st.share, dst, depth, out)
                } else {
                    self.expand(st, &low, st.share / 2.0, dst, depth, out)
                        .and_then(|()| self.expand(st, &high, st.share / 2.0, dst, depth, out))
                };
                if result.is_err() {
                    break;
                }
            }
            (self.choices, self.choices_high) = (low, high);
            for s in &self.next {
                let key =
                    ((self.port_start[s.switch as usize] + s.port) * self.vcs + s.vc) as usize;
                self.state_index[key] = NONE;
            }
            std::mem::swap(&mut self.frontier, &mut self.next);
        }
        for &l in &self.link_touched {
            out.links
                .push((l, std::mem::take(&mut self.link_share[l as usize])));
        }
        self.link_touched.clear();
        result.map_err(|e| {
            Error::Invalid(format!(
                "flow model on `{}`: {e} (a bug in the topology's routing function)",
                topo.spec()
            ))
        })
    }

    /// Sends `share` of the flow at state `st` evenly over `choices` (escape choices only when there
    /// is nothing else): onto their links, into the next frontier, or to the destination.
    fn expand(
        &mut self,
        st: State,
        choices: &[RouteChoice],
        share: f64,
        dst: u32,
        depth: u32,
        out: &mut Route,
    ) -> std::result::Result<(), String> {
        let plain = choices.iter().filter(|c| !c.escape).count();
        let (count, escape) = if plain > 0 {
            (plain, false)
        } else {
            (choices.len(), true)
        };
        if count == 0 {
            return Err(format!(
                "switch {} offers no route towards node {dst}",
                st.switch
            ));
        }
        let share = share / count as f64;
        for choice in choices.iter().filter(|c| c.escape == escape) {
            let gp = self.port_start[st.switch as usize] + choice.port;
            self.add_share(gp, share);
            let latency = st.latency + self.link_latency[gp as usize];
            match self.topo.neighbour(st.switch, choice.port) {
                Endpoint::Node(n) if n == dst => {
                    out.latency = out.latency.max(latency);
                    out.hops = out.hops.min(depth);
                }
                Endpoint::Node(n) => {
                    return Err(format!("the route towards node {dst} ends at node {n}"));
                }
                Endpoint::Unplugged => {
                    return Err(format!(
                        "switch {} routes to its unplugged port {}",
                        st.switch, choice.port
                    ));
                }
                Endpoint::Switch { .. } if choice.vc >= self.vcs => {
                    return Err(format!(
                        "switch {} offers virtual channel {} of {}",
                        st.switch, choice.vc, self.vcs
                    ));
                }
                Endpoint::Switch { switch, port } => {
                    let key =
                        ((self.port_start[switch as usize] + port) * self.vcs + choice.vc) as usize;
                    match self.state_index[key] {
                        NONE => {
                            self.state_index[key] = self.next.len() as u32;
                            self.next.push(State {
                                switch,
                                port,
                                vc: choice.vc,
                                share,
                                latency,
                            });
                        }
                        j => {
                            let s = &mut self.next[j as usize];
                            s.share += share;
                            s.latency = s.latency.max(latency);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    #[inline]
    fn add_share(&mut self, link: u32, share: f64) {
        let s = &mut self.link_share[link as usize];
        if *s == 0.0 {
            self.link_touched.push(link);
        }
        *s += share;
    }

    /// Class (for grouping) and name (for listing) of link `l`, as the flit engine reports links;
    /// `None` for an unplugged port.
    pub(super) fn describe(&self, l: u32) -> Option<(String, String)> {
        if l >= self.ports {
            return Some(crate::network::stats::injection_link(l - self.ports));
        }
        let sw = self.port_start.partition_point(|&s| s <= l) as u32 - 1;
        crate::network::stats::port_link(self.topo, sw, l - self.port_start[sw as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shares(topo: &str, src: u32, dst: u32) -> (Vec<(u32, f64)>, u64, u32, u32) {
        let topo = crate::topology::build(topo).unwrap();
        let model = NetworkModel::default();
        let mut routes = Routes::new(topo.as_ref(), &model, 2);
        let id = routes.route(0, 1, src, dst).unwrap();
        let r = routes.get(id).clone();
        (r.links, r.latency, r.hops, routes.ports)
    }

    /// Every branch of a split route ends at the destination: the shares of the ejection link and of
    /// the injection link are 1, and each tree level up carries the whole flow once.
    #[test]
    fn a_fat_tree_route_splits_over_the_up_ports_and_conserves_the_flow() {
        // 4-ary 3-tree: node 0 to node 63 climbs to the top (4 + 16 up links), comes down 16 + 4.
        let (links, latency, hops, ports) = shares("fat-tree:k=4,n=3", 0, 63);
        assert_eq!((latency, hops), (6, 6));
        assert_eq!(links.len(), 1 + 4 + 16 + 16 + 4 + 1);
        let total: f64 = links.iter().map(|l| l.1).sum();
        assert!((total - 6.0).abs() < 1e-12, "{total}");
        assert_eq!(links[0], (ports, 1.0), "the injection link carries all");
        assert!(links[1..5].iter().all(|l| l.1 == 0.25));
        assert!(links[5..21].iter().all(|l| l.1 == 0.0625));
        assert_eq!(
            links.last().unwrap().1,
            1.0,
            "the ejection link carries all"
        );
    }

    /// A node on the same switch: injection and ejection links only.
    #[test]
    fn neighbours_on_one_switch_use_two_links() {
        let (links, latency, hops, _) = shares("fat-tree:k=4,n=3", 0, 1);
        assert_eq!((links.len(), latency, hops), (2, 2, 2));
    }

    /// A torus destination half-way round a ring: half the flow goes each way.
    #[test]
    fn half_way_ring_ties_are_split_both_ways() {
        let (links, latency, hops, ports) = shares("torus:k=4,n=1", 0, 2);
        // injection, 0>1 and 1>2 (1/2 each), 0>3 and 3>2 (1/2 each), ejection.
        assert_eq!(links.len(), 6, "{links:?}");
        assert_eq!(links[0], (ports, 1.0));
        assert_eq!(links.iter().filter(|l| l.1 == 0.5).count(), 4);
        assert_eq!((latency, hops), (4, 4));
        let (links, ..) = shares("torus:k=4,n=1", 0, 1);
        assert!(links.iter().all(|l| l.1 == 1.0), "not a tie: one way");
    }

    /// Cached routes are shared; routes past the cache are released and their slots reused.
    #[test]
    fn routes_are_cached_per_rank_pair() {
        let topo = crate::topology::build("torus:k=4,n=2").unwrap();
        let mut routes = Routes::new(topo.as_ref(), &NetworkModel::default(), 4);
        let a = routes.route(0, 3, 0, 10).unwrap();
        assert_eq!(routes.route(0, 3, 0, 10).unwrap(), a);
        let b = routes.route(1, 2, 5, 6).unwrap();
        assert_ne!(a, b);
        let mut big = Routes::new(topo.as_ref(), &NetworkModel::default(), CACHE_RANKS + 1);
        let c = big.route(0, 3, 0, 10).unwrap();
        big.release(c);
        assert_eq!(big.route(1, 2, 5, 6).unwrap(), c, "the slot is reused");
    }
}
