//! The TOML configs (run, sweep, campaign) and their value checks on arbitrary text: a config or an
//! error, never a panic. Specs inside are not built (a valid spec may name a 16 M-node network).
#![no_main]

use libfuzzer_sys::fuzz_target;
use netreplay::campaign::CampaignConfig;
use netreplay::load_latency::SweepConfig;
use netreplay::run::RunConfig;

fuzz_target!(|text: &str| {
    if let Ok(c) = toml::from_str::<RunConfig>(text) {
        let _ = c.network.check_values();
    }
    if let Ok(c) = toml::from_str::<SweepConfig>(text) {
        let _ = c.network.check_values();
        let _ = c.open_loop.validate();
        let _ = c.loads.as_deref().map(netreplay::load_latency::parse_loads);
    }
    if let Ok(c) = toml::from_str::<CampaignConfig>(text) {
        let _ = c.weights.validate(&c.cells());
    }
});
