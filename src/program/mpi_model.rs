//! The MPI model values: point-to-point protocol, self-message cost and compute scaling.
//!
//! Defaults for replayed traces ([`MpiModel::mpich`]) follow MPICH's CH3 device: messages of up to
//! `MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE` = 131,072 bytes go eagerly, larger ones through the rendezvous
//! handshake (request-to-send, clear-to-send once the receive is posted, then the data). Generated
//! workloads keep seed 004's reactive model ([`MpiModel::default`]: every send eager), which is what its
//! published figures and INSEE/FSIN replay.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// How point-to-point messages move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// Every standard send is eager: the data leaves at once and the send completes (seed 004 §3.1).
    Eager,
    /// Eager up to `eager_threshold` bytes, rendezvous above.
    Rendezvous,
}

/// MPICH CH3's eager limit (`MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE`, 128 KiB): larger messages rendezvous.
pub const MPICH_EAGER_THRESHOLD: u64 = 131_072;

/// Bytes of a rendezvous control message (request-to-send, clear-to-send): the order of MPICH CH3's
/// packet header union (`MPIDI_CH3_Pkt_t`), one 64-byte packet under the default network model.
pub const CONTROL_BYTES: u64 = 64;

/// The MPI model a program runs under; every field is a trace workload parameter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MpiModel {
    /// `protocol=eager|rendezvous`.
    pub protocol: Protocol,
    /// `eager_threshold=BYTES`: the largest message sent eagerly under the rendezvous protocol.
    pub eager_threshold: u64,
    /// `control_bytes=BYTES`: size of each rendezvous control message.
    pub control_bytes: u64,
    /// `self_copy=CYCLES_PER_BYTE`: a self-message costs its rank `ceil(bytes × this)` cycles of local
    /// copy and never enters the network (0: free).
    pub self_copy: f64,
    /// `compute_scale=X`: every compute duration is multiplied by X (0.5 = a CPU twice as fast);
    /// `compute=off` sets 0.
    pub compute_scale: f64,
}

impl Default for MpiModel {
    /// Seed 004's reactive sources: every send eager, self-messages free, compute as given.
    fn default() -> Self {
        MpiModel {
            protocol: Protocol::Eager,
            eager_threshold: MPICH_EAGER_THRESHOLD,
            control_bytes: CONTROL_BYTES,
            self_copy: 0.0,
            compute_scale: 1.0,
        }
    }
}

impl MpiModel {
    /// The workload keys [`MpiModel::set`] takes.
    pub const KEYS: &'static [&'static str] = &[
        "protocol",
        "eager_threshold",
        "control_bytes",
        "self_copy",
        "compute_scale",
        "compute",
    ];

    /// The defaults for replayed traces: MPICH's protocols.
    pub fn mpich() -> Self {
        MpiModel {
            protocol: Protocol::Rendezvous,
            ..MpiModel::default()
        }
    }

    /// Whether a standard-mode message of `bytes` uses the rendezvous handshake.
    pub fn rendezvous(&self, bytes: u64) -> bool {
        self.protocol == Protocol::Rendezvous && bytes > self.eager_threshold
    }

    /// A compute duration after `compute_scale`; exact when the scale is 1.
    pub fn compute_cycles(&self, cycles: u64) -> u64 {
        if self.compute_scale == 1.0 {
            cycles
        } else {
            (cycles as f64 * self.compute_scale).round() as u64
        }
    }

    /// Cycles a rank spends copying a self-message of `bytes`.
    pub fn self_copy_cycles(&self, bytes: u64) -> u64 {
        if self.self_copy == 0.0 {
            0
        } else {
            (bytes as f64 * self.self_copy).ceil() as u64
        }
    }

    /// Sets one value from its workload key (`protocol`, `eager_threshold`, `control_bytes`,
    /// `self_copy`, `compute_scale`, `compute`); errors say what is accepted.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let bad = |problem: String| Error::BadValue {
            kind: "workload",
            name: "trace".to_string(),
            key: key.to_string(),
            problem,
        };
        let number = |max: f64| {
            value
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && (0.0..=max).contains(x))
                .ok_or_else(|| bad(format!("= `{value}` is not a number in 0..={max}")))
        };
        let bytes = || {
            value
                .parse::<u64>()
                .ok()
                .filter(|&b| b <= 1 << 50)
                .ok_or_else(|| bad(format!("= `{value}` is not a byte count in 0..=2^50")))
        };
        match key {
            "protocol" => {
                self.protocol = match value {
                    "eager" => Protocol::Eager,
                    "rendezvous" => Protocol::Rendezvous,
                    _ => return Err(bad(format!("`{value}` is not one of eager, rendezvous"))),
                }
            }
            "eager_threshold" => self.eager_threshold = bytes()?,
            "control_bytes" => self.control_bytes = bytes()?,
            "self_copy" => self.self_copy = number(1e6)?,
            "compute_scale" => self.compute_scale = number(1e6)?,
            "compute" => match value {
                "on" => {}
                "off" => self.compute_scale = 0.0,
                _ => return Err(bad(format!("`{value}` is not one of on, off"))),
            },
            _ => {
                return Err(bad(format!(
                    "is not an MPI model value; accepted: {}",
                    Self::KEYS.join(", ")
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_scaling_and_errors() {
        let m = MpiModel::mpich();
        assert!(!m.rendezvous(131_072) && m.rendezvous(131_073));
        assert!(!MpiModel::default().rendezvous(1 << 40));
        let mut m = MpiModel::default();
        m.set("compute_scale", "0.5").unwrap();
        assert_eq!(m.compute_cycles(1001), 501);
        m.set("compute", "off").unwrap();
        assert_eq!(m.compute_cycles(1001), 0);
        m.set("self_copy", "0.25").unwrap();
        assert_eq!(m.self_copy_cycles(10), 3);
        assert!(m.set("protocol", "fast").is_err());
        assert!(m.set("compute_scale", "-1").is_err());
        assert!(m.set("eager_threshold", "1e3").is_err());
    }
}
