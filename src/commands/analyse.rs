//! `sowfan analyse`: the command line of the game analysis.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::analysis::{self, AnalyseArgs};
use crate::cli::cancel_on_interrupt;

/// Set by SIGINT/SIGTERM in the signal handler itself.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_: libc::c_int) {
    // Only async-signal-safe work: an atomic swap, and `_exit` on the second signal.
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // SAFETY: `_exit` is async-signal-safe and ends the process at once.
        unsafe { libc::_exit(130) };
    }
}

/// Ctrl-C and SIGTERM set [`INTERRUPTED`] in the handler, not on a thread woken later (as
/// [`cancel_on_interrupt`] does): a terminal's Ctrl-C also ends the program writing into
/// the pipe, and the end of the input must not be seen before the interruption (the run
/// would look finished and exit 0). A second signal ends the program at once (status 130).
fn interrupt_flag() -> &'static AtomicBool {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction is valid (empty mask, no flags); the handler only does
        // async-signal-safe work; sigaction is given valid pointers.
        let installed = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_interrupt as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut()) == 0
        };
        if !installed {
            // The usual handler, on a thread: still a clean stop, only later.
            let token = cancel_on_interrupt("analyse");
            std::thread::spawn(move || {
                while !token.is_cancelled() {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                INTERRUPTED.store(true, Ordering::SeqCst);
            });
            break;
        }
    }
    &INTERRUPTED
}

/// Status 0 when every game was analysed, 1 when some game could not be read or replayed
/// (each was reported) or the run could not start, 130 after Ctrl-C or SIGTERM (also while
/// it waits for its input).
pub fn run(args: AnalyseArgs) -> ExitCode {
    let stop = interrupt_flag();
    match analysis::run(&args, stop) {
        Ok(report) if report.interrupted || stop.load(Ordering::SeqCst) => {
            eprintln!("sowfan analyse: interrupted");
            ExitCode::from(130)
        }
        Ok(report) if report.errors > 0 => ExitCode::from(1),
        Ok(_) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("sowfan analyse: {message}");
            ExitCode::FAILURE
        }
    }
}
