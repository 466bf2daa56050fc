//! Link load over time: phits per link class in time bins, and the time series of the busiest links.
//!
//! The engine calls `LoadBins::add` once per packet that starts on a link, and only when a recorder
//! was attached (an `Option` checked once per packet start; nothing at all happens when it is off).
//! The run's length is not known while it runs, so bins start one cycle wide and double when the run
//! outgrows them (pairs of bins merge): at the end there are between half of `max_bins` and
//! `max_bins` bins of a power-of-two width. Memory is bins x classes, plus the per-link bins of every
//! link when that is cheap (links x bins at most [`PER_LINK_BUDGET`] counters); on a larger network
//! the top links are unknown until the end, so the caller replays the (deterministic) run a second
//! time with [`LoadBins::second_pass`], tracking only those links at the first pass's bin width.
//!
//! A packet of P phits that starts at cycle s occupies its link during [s, s + P): its phits are
//! split over the bins that interval meets, so every class's series sums exactly to the phits the
//! class carried (`link_classes` of the run report).

use serde::Serialize;
use std::collections::BTreeMap;

/// Default largest number of time bins (the end result has 100 to 200).
pub const DEFAULT_BINS: usize = 200;

/// How many busiest links get a time series.
pub const TOP_LINKS: usize = 8;

/// Per-link bins are kept for every link when links x bins is at most this (16 MiB of counters).
pub const PER_LINK_BUDGET: usize = 1 << 21;

const NONE: u32 = u32::MAX;

/// The recorder the engine feeds; see the module notes.
#[derive(Debug, Clone)]
pub struct LoadBins {
    max_bins: usize,
    width: u64,
    /// Width fixed in advance (second pass): no doubling.
    fixed: bool,
    classes: Vec<String>,
    class_links: Vec<u64>,
    /// `[class][bin]` phits.
    class_bins: Vec<Vec<u64>>,
    /// Per channel: class index, or `NONE` (unplugged, crossbar).
    chan_class: Vec<u32>,
    /// Per channel: phits carried (to pick the top links).
    chan_total: Vec<u64>,
    /// Per channel: its slot in `link_bins`, or `NONE`.
    slot: Vec<u32>,
    /// `[slot][bin]` phits.
    link_bins: Vec<Vec<u64>>,
    /// Channels tracked by a second pass (empty: track every link if cheap).
    wanted: Vec<u32>,
    names: Vec<String>,
    per_link: bool,
}

/// Utilisation of one class of links over time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassSeries {
    /// Class name, as in the run report's `link_classes`.
    pub class: String,
    /// Links in the class.
    pub links: u64,
    /// Phits the class carried in each bin (sums to the class's `phits`).
    pub phits: Vec<u64>,
    /// Mean busy fraction of the class's links in each bin (phits / (links x bin cycles)).
    pub utilisation: Vec<f64>,
}

/// Utilisation of one link over time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkSeries {
    /// Which link, as in `busiest_links`.
    pub link: String,
    /// Its class.
    pub class: String,
    /// Phits it carried over the run.
    pub total_phits: u64,
    /// Busy fraction in each bin.
    pub utilisation: Vec<f64>,
}

/// Link load over time: the run report's optional `link_load` section.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkLoadSeries {
    /// Cycles per bin (a power of two); the last bin may extend past the run's end.
    pub bin_cycles: u64,
    /// Bins covering the run (ceil(completion / bin_cycles)).
    pub bins: usize,
    /// Cycles the series cover (the run's completion time).
    pub cycles: u64,
    /// One series per link class.
    pub classes: Vec<ClassSeries>,
    /// The busiest links' series, busiest first.
    pub top_links: Vec<LinkSeries>,
    /// `per-link bins` (recorded with the run) or `second pass` (the run replayed to record them).
    pub top_links_from: String,
}

impl LoadBins {
    /// A recorder of at most `max_bins` bins (at least 2), of adaptive width.
    pub fn new(max_bins: usize) -> LoadBins {
        LoadBins {
            max_bins: max_bins.max(2),
            width: 1,
            fixed: false,
            classes: Vec::new(),
            class_links: Vec::new(),
            class_bins: Vec::new(),
            chan_class: Vec::new(),
            chan_total: Vec::new(),
            slot: Vec::new(),
            link_bins: Vec::new(),
            wanted: Vec::new(),
            names: Vec::new(),
            per_link: false,
        }
    }

    /// A recorder for the second pass: the first pass's bin width and bins, tracking the channels of
    /// its top links.
    pub fn second_pass(first: &LoadBins, completion: u64) -> LoadBins {
        let mut r = LoadBins::new(first.bins_for(completion).max(2));
        r.width = first.width;
        r.fixed = true;
        r.wanted = first.top_channels();
        r
    }

    /// True when the top links' series could not be kept during the run (see the module notes).
    pub fn needs_second_pass(&self) -> bool {
        !self.per_link && self.wanted.is_empty()
    }

    /// Called by the engine before the run: the class and name of every channel (`None` for
    /// unplugged links and crossbar paths).
    pub(crate) fn attach(&mut self, links: impl Iterator<Item = Option<(String, String)>>) {
        let mut index: BTreeMap<String, u32> = BTreeMap::new();
        let mut per_chan = Vec::new();
        let mut names = Vec::new();
        for l in links {
            match l {
                Some((class, name)) => {
                    let next = index.len() as u32;
                    per_chan.push(*index.entry(class).or_insert(next));
                    names.push(name);
                }
                None => {
                    per_chan.push(NONE);
                    names.push(String::new());
                }
            }
        }
        // Classes in name order, as `link_classes` lists them.
        let order: Vec<(String, u32)> = index.into_iter().collect();
        let mut rank = vec![0u32; order.len()];
        for (i, (_, old)) in order.iter().enumerate() {
            rank[*old as usize] = i as u32;
        }
        self.chan_class = per_chan
            .into_iter()
            .map(|c| if c == NONE { NONE } else { rank[c as usize] })
            .collect();
        self.classes = order.into_iter().map(|(c, _)| c).collect();
        self.class_links = vec![0; self.classes.len()];
        for &c in &self.chan_class {
            if c != NONE {
                self.class_links[c as usize] += 1;
            }
        }
        self.class_bins = vec![vec![0; self.max_bins]; self.classes.len()];
        self.chan_total = vec![0; self.chan_class.len()];
        self.slot = vec![NONE; self.chan_class.len()];
        let links = self.chan_class.iter().filter(|&&c| c != NONE).count();
        let tracked: Vec<u32> = if !self.wanted.is_empty() {
            self.wanted.clone()
        } else if links.saturating_mul(self.max_bins) <= PER_LINK_BUDGET {
            self.per_link = true;
            (0..self.chan_class.len() as u32)
                .filter(|&c| self.chan_class[c as usize] != NONE)
                .collect()
        } else {
            Vec::new()
        };
        for (i, &c) in tracked.iter().enumerate() {
            if let Some(s) = self.slot.get_mut(c as usize) {
                *s = i as u32;
            }
        }
        self.link_bins = vec![vec![0; self.max_bins]; tracked.len()];
        self.names = names;
    }

    /// A packet of `phits` phits started on link channel `channel` at cycle `start`.
    #[inline]
    pub(crate) fn add(&mut self, channel: u32, start: u64, phits: u32) {
        let Some(&class) = self.chan_class.get(channel as usize) else {
            return;
        };
        if class == NONE {
            return;
        }
        let end = start + u64::from(phits);
        while !self.fixed && end > self.width.saturating_mul(self.max_bins as u64) {
            self.double();
        }
        self.chan_total[channel as usize] += u64::from(phits);
        let slot = self.slot[channel as usize];
        let mut t = start;
        while t < end {
            let bin = (t / self.width) as usize;
            let bin_end = (bin as u64 + 1) * self.width;
            let n = end.min(bin_end) - t;
            // A fixed-width pass never meets a bin past its last one (same run, same width).
            let bin = bin.min(self.max_bins - 1);
            self.class_bins[class as usize][bin] += n;
            if slot != NONE {
                self.link_bins[slot as usize][bin] += n;
            }
            t += n;
        }
    }

    /// Doubles the bin width, merging pairs of bins.
    fn double(&mut self) {
        for row in self.class_bins.iter_mut().chain(self.link_bins.iter_mut()) {
            for i in 0..row.len() {
                row[i] = if 2 * i < row.len() {
                    row[2 * i] + row.get(2 * i + 1).copied().unwrap_or(0)
                } else {
                    0
                };
            }
        }
        self.width *= 2;
    }

    fn bins_for(&self, completion: u64) -> usize {
        (completion.div_ceil(self.width) as usize).clamp(1, self.max_bins)
    }

    /// Channels of the busiest links, busiest first (ties: lower channel id).
    fn top_channels(&self) -> Vec<u32> {
        let mut top: Vec<u32> = (0..self.chan_total.len() as u32)
            .filter(|&c| self.chan_total[c as usize] > 0)
            .collect();
        top.sort_by_key(|&c| (std::cmp::Reverse(self.chan_total[c as usize]), c));
        top.truncate(TOP_LINKS);
        top
    }

    /// The series over a run that completed at cycle `completion`. `top` is the recorder that holds
    /// the top links' bins (this one, or the second pass's).
    pub fn finish(&self, completion: u64, top: Option<&LoadBins>) -> LinkLoadSeries {
        let bins = self.bins_for(completion);
        let w = self.width as f64;
        let classes = self
            .classes
            .iter()
            .enumerate()
            .map(|(i, class)| {
                let phits = self.class_bins[i][..bins].to_vec();
                let links = self.class_links[i];
                ClassSeries {
                    class: class.clone(),
                    links,
                    utilisation: phits
                        .iter()
                        .map(|&p| p as f64 / (links.max(1) as f64 * w))
                        .collect(),
                    phits,
                }
            })
            .collect();
        let source = top.unwrap_or(self);
        let top_links = self
            .top_channels()
            .into_iter()
            .filter_map(|c| {
                let slot = *source.slot.get(c as usize)?;
                if slot == NONE {
                    return None;
                }
                let row = &source.link_bins[slot as usize];
                Some(LinkSeries {
                    link: self.names[c as usize].clone(),
                    class: self.classes[self.chan_class[c as usize] as usize].clone(),
                    total_phits: self.chan_total[c as usize],
                    utilisation: (0..bins)
                        .map(|b| row.get(b).copied().unwrap_or(0) as f64 / w)
                        .collect(),
                })
            })
            .collect();
        LinkLoadSeries {
            bin_cycles: self.width,
            bins,
            cycles: completion,
            classes,
            top_links,
            top_links_from: if top.is_some() {
                "second pass".into()
            } else {
                "per-link bins".into()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(max: usize) -> LoadBins {
        let mut r = LoadBins::new(max);
        r.attach(
            [
                Some(("b".to_string(), "x".to_string())),
                None,
                Some(("a".to_string(), "y".to_string())),
            ]
            .into_iter(),
        );
        r
    }

    #[test]
    fn bins_double_and_keep_every_phit() {
        let mut r = rec(4);
        r.add(0, 0, 16);
        r.add(2, 3, 16);
        r.add(1, 0, 16); // unplugged: ignored
        r.add(0, 100, 16);
        let s = r.finish(116, None);
        assert_eq!(s.bin_cycles, 32);
        assert_eq!(s.bins, 4);
        assert_eq!(s.classes[0].class, "a");
        assert_eq!(s.classes[0].phits.iter().sum::<u64>(), 16);
        assert_eq!(s.classes[1].phits, vec![16, 0, 0, 16]);
        assert_eq!(s.top_links[0].link, "x");
        assert_eq!(s.top_links[0].total_phits, 32);
        assert_eq!(s.top_links_from, "per-link bins");
    }

    #[test]
    fn a_packet_across_a_bin_boundary_is_split() {
        let mut r = rec(200);
        r.add(2, 0, 300);
        let s = r.finish(300, None);
        assert_eq!(s.bin_cycles, 2);
        assert_eq!(s.classes[0].phits.iter().sum::<u64>(), 300);
        assert!(s.classes[0].utilisation.iter().all(|&u| u <= 1.0));
    }
}
