//! Send-to-receive arrows of the replay timeline: which receive each drawn send ends at, and the
//! clock that turns cycles into the format's microseconds.
//!
//! A send is paired with its receive by MPI's non-overtaking rule: the k-th message from one rank to
//! another with one matching tag (context included) is the k-th one received there. The runtime tells
//! the writer both ends ([`crate::mpi::observe::RankObserver::send`] and `received`), so a queue per
//! (sender, receiver, tag) of the messages in flight is all the pairing needs.

use ahash::AHashMap;
use std::collections::VecDeque;
use std::fmt;

/// Most send-to-receive arrows a timeline draws (trace-event flow events `s`/`f`): past this many,
/// sends are instants with no arrow, so a long trace's file and a viewer's memory stay bounded.
pub const MAX_FLOWS: u64 = 10_000;

/// Converts cycles to the trace-event format's microseconds at the model's clock.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    cycles_per_us: f64,
}

impl Clock {
    /// A clock of `cycles_per_second` (positive and finite, as the workload checked it).
    pub fn new(cycles_per_second: f64) -> Clock {
        Clock {
            cycles_per_us: cycles_per_second / 1e6,
        }
    }

    /// `cycles` as microseconds, printed as the shortest decimal that reads back as the same
    /// number: one cycle at 1 GHz is `0.001`, and two events at one cycle print the same string,
    /// so a consumer sees them at exactly the same time.
    pub fn us(&self, cycles: u64) -> Us {
        Us(cycles as f64 / self.cycles_per_us)
    }
}

/// A time in microseconds, printed as a JSON number.
#[derive(Debug, Clone, Copy)]
pub struct Us(f64);

impl fmt::Display for Us {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The messages in flight whose arrows are drawn, and the receives waiting to be written.
#[derive(Debug)]
pub struct Flows {
    /// Per (sender, receiver, tag): each message in flight, in send order, with its arrow id if
    /// drawn. A key is kept only while it has messages in flight.
    in_flight: AHashMap<(u32, u32, u64), VecDeque<Option<u64>>>,
    /// Arrows started so far (the next arrow's id).
    started: u64,
    max: u64,
    /// Per rank: (cycle, arrow id) of receives heard but not yet written on the rank's track, in
    /// time order.
    pending: Vec<VecDeque<(u64, u64)>>,
}

impl Flows {
    /// No arrows yet, for `ranks` ranks, drawing at most `max`.
    pub fn new(ranks: u32, max: u64) -> Flows {
        Flows {
            in_flight: AHashMap::new(),
            started: 0,
            max,
            pending: vec![VecDeque::new(); ranks as usize],
        }
    }

    /// A message from `from` to `to` with `tag` was sent; `draw` says whether its arrow may be
    /// drawn (both ranks shown, a point-to-point message). Returns the new arrow's id, if drawn.
    pub fn sent(&mut self, from: u32, to: u32, tag: u64, draw: bool) -> Option<u64> {
        let id = (draw && self.started < self.max).then(|| {
            self.started += 1;
            self.started - 1
        });
        let key = (from, to, tag);
        // Past the cap nothing is drawn any more, so a key with no message in flight needs no
        // entry; before it, undrawn messages hold their place so the drawn ones pair exactly.
        if self.started < self.max || id.is_some() || self.in_flight.contains_key(&key) {
            self.in_flight.entry(key).or_default().push_back(id);
        }
        id
    }

    /// `to` received the next message from `from` with `tag` at cycle `at`: its arrow, if drawn,
    /// waits to be written on `to`'s track.
    pub fn received(&mut self, to: u32, at: u64, from: u32, tag: u64) {
        let key = (from, to, tag);
        let Some(queue) = self.in_flight.get_mut(&key) else {
            return;
        };
        let id = queue.pop_front().flatten();
        if queue.is_empty() {
            self.in_flight.remove(&key);
        }
        if let Some(id) = id {
            self.pending[to as usize].push_back((at, id));
        }
    }

    /// The next receive of `rank` if it is due by cycle `upto`: (cycle, arrow id), taken off the
    /// waiting list.
    pub fn due(&mut self, rank: u32, upto: u64) -> Option<(u64, u64)> {
        let queue = &mut self.pending[rank as usize];
        let &(at, id) = queue.front().filter(|&&(at, _)| at <= upto)?;
        queue.pop_front();
        Some((at, id))
    }

    /// The cycle of the next receive of `rank` waiting to be written, if any.
    pub fn next_due(&self, rank: u32) -> Option<u64> {
        self.pending[rank as usize].front().map(|&(at, _)| at)
    }

    /// Forgets the receives waiting to be written (the detail stopped).
    pub fn drop_pending(&mut self) {
        self.pending.iter_mut().for_each(VecDeque::clear);
    }

    /// Arrows started.
    pub fn started(&self) -> u64 {
        self.started
    }

    /// Most arrows drawn.
    pub fn max(&self) -> u64 {
        self.max
    }

    #[cfg(test)]
    fn waiting(&self, rank: u32) -> usize {
        self.pending[rank as usize].len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_gigahertz_prints_nanoseconds_as_exact_microseconds() {
        let c = Clock::new(1e9);
        assert_eq!(c.us(0).to_string(), "0");
        assert_eq!(c.us(1).to_string(), "0.001");
        assert_eq!(c.us(8_935_622).to_string(), "8935.622");
        assert_eq!(c.us(300).to_string(), "0.3");
        assert_eq!(Clock::new(2e9).us(3).to_string(), "0.0015");
    }

    #[test]
    fn sends_pair_with_receives_in_send_order_per_key() {
        let mut f = Flows::new(3, 10);
        assert_eq!(f.sent(0, 1, 7, true), Some(0));
        assert_eq!(f.sent(0, 1, 7, false), None);
        assert_eq!(f.sent(0, 1, 7, true), Some(1));
        assert_eq!(f.sent(2, 1, 7, true), Some(2));
        f.received(1, 50, 2, 7);
        f.received(1, 60, 0, 7);
        f.received(1, 70, 0, 7); // the undrawn one
        f.received(1, 70, 0, 7);
        assert_eq!(f.due(1, 55), Some((50, 2)));
        assert_eq!(f.due(1, 55), None);
        assert_eq!(f.due(1, 100), Some((60, 0)));
        assert_eq!(f.due(1, 100), Some((70, 1)));
        assert_eq!(f.waiting(1), 0);
        assert!(f.in_flight.is_empty());
    }

    #[test]
    fn past_the_cap_nothing_is_drawn_and_nothing_is_kept() {
        let mut f = Flows::new(2, 1);
        assert_eq!(f.sent(0, 1, 0, true), Some(0));
        assert_eq!(f.sent(0, 1, 0, true), None);
        assert_eq!(f.sent(1, 0, 0, true), None);
        assert_eq!(
            f.in_flight.len(),
            1,
            "only the key with a drawn message in flight"
        );
        f.received(1, 5, 0, 0);
        f.received(1, 6, 0, 0);
        f.received(0, 6, 1, 0);
        assert_eq!(f.due(1, 10), Some((5, 0)));
        assert_eq!(f.due(1, 10), None);
        assert_eq!(f.started(), 1);
        assert!(f.in_flight.is_empty());
    }
}
