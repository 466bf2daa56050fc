//! `campaign` (run, `--status`, `--slurm`) and `report`: many runs and their merged report.

use crate::cli::args::{CampaignArgs, ReportArgs};
use crate::cli::overlay;
use crate::error::{Error, Result};
use crate::{campaign, output, report};
use std::path::Path;

/// `campaign`: the status of a results directory, a Slurm layout, or the runs themselves followed
/// by the campaign's report.
pub(in crate::cli) fn campaign(args: CampaignArgs) -> Result<()> {
    if let Some(dir) = &args.status {
        return status(dir, args.shard);
    }
    let c = overlay::campaign(&args)?;
    if args.slurm.slurm {
        return slurm(&c, &args);
    }
    let jobs = args
        .jobs
        .map_or_else(rayon::current_num_threads, |j| j as usize);
    if jobs > campaign::threads(jobs) {
        log::warn!(
            "--jobs {jobs}: runs {} at once, the machine's cores",
            campaign::threads(jobs)
        );
    }
    output::interrupt::describe(&format!(
        "campaign {} into {}: the runs finished so far are kept; rerun with the same --out \
         to run only the rest",
        c.path.display(),
        c.dir.display()
    ));
    let show = args.show.show();
    let p = campaign::run_campaign(&c.config, &c.dir, jobs, args.shard, show)?;
    eprintln!(
        "{} runs in this {}: {} already done, {} run now; results in {}",
        p.shard_runs,
        if args.shard.is_some() {
            "shard"
        } else {
            "campaign"
        },
        p.resumed,
        p.ran,
        c.dir.display()
    );
    let (cfg, records) = campaign::merge(std::slice::from_ref(&c.dir))?;
    let a = campaign::analysis::analyse(&cfg, &records)?;
    report::campaign::write_all(&a, &c.dir)?;
    print!("{}", report::campaign::markdown(&a));
    Ok(())
}

/// `campaign --status DIR [--shard I/N]`: which runs are done and which missing; an error while any
/// is missing.
fn status(dir: &Path, shard: Option<campaign::Shard>) -> Result<()> {
    let s = campaign::status::status(dir, shard)?;
    print!("{}", s.text());
    if s.missing() > 0 {
        return Err(Error::Invalid(format!(
            "{} of {} runs are missing; rerun the campaign with the same --out (with \
             --slurm --submit for a Slurm layout) to run only those",
            s.missing(),
            s.runs()
        )));
    }
    Ok(())
}

/// `campaign --slurm`: the job array and merge job written, and submitted with `--submit`.
fn slurm(c: &overlay::Campaign, args: &CampaignArgs) -> Result<()> {
    let exe = std::env::current_exe().map_err(Error::io("the path of the netreplay binary"))?;
    let req = overlay::slurm(&args.slurm);
    let p = campaign::slurm::prepare(&c.config, &c.path, &c.dir, &exe, &req)?;
    let sub = if args.slurm.submit {
        Some(campaign::slurm::submit(&p)?)
    } else {
        None
    };
    print!("{}", campaign::slurm::text(&p, sub.as_ref()));
    Ok(())
}

/// `report DIR...`: campaign results directories merged, the report printed and written.
pub(in crate::cli) fn report(args: ReportArgs) -> Result<()> {
    let (cfg, records) = campaign::merge(&args.dirs)?;
    let a = campaign::analysis::analyse(&cfg, &records)?;
    let dir = args.out.unwrap_or_else(|| args.dirs[0].clone());
    std::fs::create_dir_all(&dir).map_err(Error::io(dir.display()))?;
    report::campaign::write_all(&a, &dir)?;
    print!("{}", report::campaign::markdown(&a));
    Ok(())
}
