//! The `NAME:key=value` grammar of every spec kind: parsing never panics, and a parsed spec prints
//! back to text that parses to the same spec. Also the other small grammars taken from the command
//! line: load lists, memory sizes, routing lists.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netreplay::spec::Spec;

fuzz_target!(|text: &str| {
    for kind in ["topology", "workload", "placement", "traffic", "routing", "cost model"] {
        if let Ok(spec) = Spec::parse(kind, text) {
            let again = Spec::parse(kind, &spec.to_string()).expect("a printed spec parses");
            assert_eq!(again.to_string(), spec.to_string());
        }
    }
    let _ = netreplay::load_latency::parse_loads(text);
    let _ = netreplay::network::memory::parse_size(text);
    let _ = netreplay::network::Routing::parse(text);
    let _ = text.parse::<netreplay::campaign::Shard>();
});
