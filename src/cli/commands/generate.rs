//! `generate`: a workload (or a converted trace) written as a trace file.

use crate::cli::args::GenerateArgs;
use crate::error::{Error, Result};
use crate::{output, topology, trace, workload};

/// `generate SPEC --ranks N --out FILE`: the rank count and memory checked and the output prepared
/// before the program is generated.
pub(in crate::cli) fn generate(args: GenerateArgs) -> Result<()> {
    let GenerateArgs {
        spec,
        ranks,
        out,
        format,
        max_memory,
    } = args;
    let format = trace::Format::parse_writable(&format)?;
    // A trace to convert is read now, its lowering kept under the same memory limit.
    let wl = crate::network::memory::with_limit(max_memory, || workload::build(&spec))?;
    if wl.ranks.is_some_and(|r| r != ranks) {
        return Err(Error::Invalid(format!(
            "workload `{spec}` says ranks={} but --ranks is {ranks}; give the count once",
            wl.ranks.unwrap_or(ranks)
        )));
    }
    // What it writes is a trace, so the readers' rank limit applies (below the simulator's).
    let max = topology::MAX_NODES.min(u64::from(crate::mpi::MAX_RANKS));
    if u64::from(ranks) > max {
        return Err(Error::Invalid(format!(
            "--ranks {ranks} is more than a trace may hold (at most {max} ranks)"
        )));
    }
    output::prepare_output(&out)?;
    if let Some(bytes) = wl.generator.bytes_bound(ranks) {
        crate::network::memory::check(
            bytes,
            max_memory,
            &format!("generating `{}` on {ranks} ranks", wl.generator.spec()),
        )?;
    }
    let program = wl.generator.generate(ranks)?;
    trace::write_as(&program, &out, format)?;
    println!(
        "wrote {} ({} ranks, {} ops) to {}",
        wl.generator.spec(),
        program.ranks(),
        (0..program.ranks())
            .map(|r| program.rank_ops(r).len())
            .sum::<usize>(),
        out.display()
    );
    Ok(())
}
