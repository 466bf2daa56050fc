//! A map from a rank's request handles to what they stand for, for the few requests a rank has open
//! at once: a short vector searched in order while it holds at most [`SMALL`] entries (no hashing,
//! one allocation reused for the whole trace), a hash map beyond. Readers and the MPI layer look a
//! handle up on every non-blocking call and wait, so this is on the hot path of reading a trace.

use ahash::AHashMap;

/// Entries kept in the vector before the map moves to hashing.
const SMALL: usize = 16;

/// Handles (`u32`) to values; iteration follows insertion order while the map is small.
#[derive(Debug, Clone)]
pub(crate) struct HandleMap<V> {
    small: Vec<(u32, V)>,
    /// Every entry once more than [`SMALL`] were held at once (then `small` is empty).
    large: Option<Box<AHashMap<u32, V>>>,
}

impl<V> Default for HandleMap<V> {
    fn default() -> Self {
        HandleMap {
            small: Vec::new(),
            large: None,
        }
    }
}

impl<V> HandleMap<V> {
    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.large.as_ref().map_or(self.small.len(), |m| m.len())
    }

    /// Whether `handle` has an entry.
    pub(crate) fn contains_key(&self, handle: u32) -> bool {
        match &self.large {
            Some(m) => m.contains_key(&handle),
            None => self.small.iter().any(|(h, _)| *h == handle),
        }
    }

    /// `handle`'s value.
    pub(crate) fn get(&self, handle: u32) -> Option<&V> {
        match &self.large {
            Some(m) => m.get(&handle),
            None => self
                .small
                .iter()
                .find(|(h, _)| *h == handle)
                .map(|(_, v)| v),
        }
    }

    /// Sets `handle`'s value; returns the value it replaces.
    pub(crate) fn insert(&mut self, handle: u32, value: V) -> Option<V> {
        if let Some(m) = &mut self.large {
            return m.insert(handle, value);
        }
        if let Some((_, v)) = self.small.iter_mut().find(|(h, _)| *h == handle) {
            return Some(std::mem::replace(v, value));
        }
        if self.small.len() < SMALL {
            self.small.push((handle, value));
        } else {
            let mut m: AHashMap<u32, V> = self.small.drain(..).collect();
            m.insert(handle, value);
            self.large = Some(Box::new(m));
        }
        None
    }

    /// Takes `handle`'s entry out.
    pub(crate) fn remove(&mut self, handle: u32) -> Option<V> {
        match &mut self.large {
            Some(m) => {
                let v = m.remove(&handle);
                if m.is_empty() {
                    self.large = None;
                }
                v
            }
            None => {
                let i = self.small.iter().position(|(h, _)| *h == handle)?;
                Some(self.small.remove(i).1)
            }
        }
    }

    /// Removes every entry (keeping the vector's room).
    pub(crate) fn clear(&mut self) {
        self.small.clear();
        self.large = None;
    }

    /// Every value.
    pub(crate) fn values(&self) -> Box<dyn Iterator<Item = &V> + '_> {
        match &self.large {
            Some(m) => Box::new(m.values()),
            None => Box::new(self.small.iter().map(|(_, v)| v)),
        }
    }

    /// Every handle.
    pub(crate) fn keys(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        match &self.large {
            Some(m) => Box::new(m.keys().copied()),
            None => Box::new(self.small.iter().map(|(h, _)| *h)),
        }
    }
}

/// Equal when both hold the same handles with equal values, in any order.
impl<V: PartialEq> PartialEq for HandleMap<V> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.keys().all(|h| self.get(h) == other.get(h))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_large_maps_agree_with_a_hash_map() {
        let mut m = HandleMap::default();
        let mut reference = AHashMap::new();
        // Handles cycle through 0..40, so the map grows past SMALL, shrinks back and grows again.
        for step in 0u32..400 {
            let h = (step * 7) % 40;
            if step % 3 == 2 {
                assert_eq!(m.remove(h), reference.remove(&h), "step {step}");
            } else {
                assert_eq!(m.insert(h, step), reference.insert(h, step), "step {step}");
            }
            assert_eq!(m.len(), reference.len());
            assert!((0..40).all(|h| m.contains_key(h) == reference.contains_key(&h)));
        }
        let mut other = HandleMap::default();
        for (&h, &v) in &reference {
            other.insert(h, v);
        }
        assert!(m == other && m.len() > SMALL);
        m.clear();
        assert_eq!((m.len(), m.values().count()), (0, 0));
    }
}
