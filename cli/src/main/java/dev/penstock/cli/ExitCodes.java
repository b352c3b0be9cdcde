package dev.penstock.cli;

/// The exit codes of `penstock`, listed in `--help` and README.
final class ExitCodes {
    /// Everything asked was done.
    static final int OK = 0;
    /// An internal error (a bug): the trace is printed, with a line saying so.
    static final int INTERNAL = 1;
    /// A bad option or argument: nothing was run, no file was created.
    static final int USAGE = 2;
    /// Bad input data (a file that is not what its name says, a bad row under --on-bad-row fail):
    /// the outputs are left as they were.
    static final int BAD_INPUT = 3;
    /// Finished, with systems quarantined (written beside OUT with their diagnoses).
    static final int QUARANTINED = 4;
    /// Finished, with systems whose relaxation spent its step budget before its fmax (written,
    /// with `outcome=unconverged`; a relaxation given `steps` alone is a budget only, never this).
    static final int UNCONVERGED = 6;
    /// An output could not be written (no space, no permission, an I/O error): left as it was.
    static final int OUTPUT_FAILED = 5;
    /// Interrupted by SIGINT (Ctrl-C) / SIGTERM: outputs left as they were.
    static final int SIGINT = 130;
    static final int SIGTERM = 143;

    /// The text `--help` shows.
    static final String HELP = """
            Exit codes: 0 done; 1 internal error (a bug: trace printed); 2 bad option or argument (nothing run, \
            no file created); 3 bad input data (outputs left as they were); 4 done with quarantined systems; \
            5 output could not be written (left as it was); 6 done, but some systems did not converge (a relaxation spent its \
            step budget first; written with outcome=unconverged); 130/143 interrupted by SIGINT/SIGTERM (outputs left as they were).""";

    private ExitCodes() {
    }
}
