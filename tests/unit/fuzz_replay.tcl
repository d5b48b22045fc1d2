# fuzz_replay.tcl -- the request parser's and the snapshot loader's fuzz
# targets (tests/fuzz/) in the normal suite: the seed corpus is replayed by ./replay-resp (gcc, ASan and
# UBSan, no libFuzzer needed), then a short libFuzzer session runs on a copy
# of the corpus. Needs no server. Each part is skipped, with the reason, when
# its compiler or runtime is missing.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set root [file normalize [file join [file dirname [info script]] .. ..]]
set fuzzdir [file join $root tests fuzz]
set corpus [file join $fuzzdir corpus]
set rdb_corpus [file join $fuzzdir corpus-rdb]
set fuzz_seconds 10

# Runs a command, returns {exit-status combined-output}. A process killed by
# a signal reports 128+signal, like a shell.
proc run_cmd {args} {
    set code [catch {exec {*}$args 2>@1} out opts]
    if {!$code} { return [list 0 $out] }
    set ec [dict get $opts -errorcode]
    switch -- [lindex $ec 0] {
        CHILDSTATUS { return [list [lindex $ec 2] $out] }
        CHILDKILLED { return [list [expr {128 + [signum [lindex $ec 2]]}] "$out\n(killed by [lindex $ec 2])"] }
        default { return [list 127 "$out\n($ec)"] }
    }
}

proc signum {name} {
    set n [lsearch {- SIGHUP SIGINT SIGQUIT SIGILL SIGTRAP SIGABRT SIGBUS SIGFPE SIGKILL SIGUSR1 SIGSEGV} $name]
    return [expr {$n > 0 ? $n : 0}]
}

proc tail_lines {text n} {
    set lines [split [string trimright $text \n] \n]
    return [join [lrange $lines end-[expr {$n - 1}] end] \n]
}

# The last lines of a command's output on one line (for skip reasons).
proc oneline {text} {
    set lines {}
    foreach l [split $text \n] {
        set l [string trim $l]
        if {$l ne "" && $l ne "child process exited abnormally"} { lappend lines $l }
    }
    return [join [lrange $lines end-1 end] " | "]
}

proc make_fuzz {target args} {
    return [run_cmd make -s -C $::fuzzdir $target {*}$args]
}

# Builds the replayer `target` and replays every seed in `dir` with it;
# the seed count must lie within min..max (a corpus that vanished or grew
# by accident shows).
proc replay_corpus {target dir min max} {
    if {[auto_execok make] eq ""} { skip_test "make not found" }
    lassign [make_fuzz $target] rc out
    if {$rc != 0} {
        skip_test "$target does not build (gcc with -fsanitize=address,undefined): [oneline $out]"
    }
    set seeds [glob -nocomplain -type f -directory $dir *]
    assert_range [llength $seeds] $min $max "seed files in $dir"
    lassign [run_cmd [file join $::fuzzdir $target] $dir] rc out
    if {$rc != 0} {
        error "$target exited with status $rc:\n[tail_lines $out 25]"
    }
    assert_match "*[llength $seeds] inputs replayed without a failure*" $out
}

# Builds the libFuzzer binary `target` and runs `runtarget` (a Makefile
# target) for $::fuzz_seconds; any artifact or failure fails the test.
proc fuzz_session {target runtarget name args} {
    if {[auto_execok make] eq ""} { skip_test "make not found" }
    lassign [make_fuzz $target] rc out
    if {$rc != 0} {
        skip_test "$target does not build (clang -fsanitize=fuzzer; try apt-get install libclang-rt-14-dev): [oneline $out]"
    }
    set work [file join $::cairn(tmp) $name]
    lassign [make_fuzz $runtarget SECONDS=$::fuzz_seconds WORK=$work {*}$args] rc out
    set log [file join $::cairn(tmp) $name.log]
    set f [open $log w]
    puts $f $out
    close $f
    set artifacts [glob -nocomplain -type f -directory [file join $work artifacts] *]
    if {$rc != 0 || [llength $artifacts]} {
        error "libFuzzer failed (status $rc, artifacts: $artifacts), log in $log:\n[tail_lines $out 30]"
    }
    assert_match "*Done * runs in * second*" $out
    # The session really ran: it executed inputs.
    assert [regexp {stat::number_of_executed_units:\s+(\d+)} $out -> execs] "no exec count in the output"
    assert {$execs > 1000} "too few executions"
}

test "seed corpus replays cleanly under gcc ASan+UBSan (replay-resp)" {
    replay_corpus replay-resp $corpus 20 40
}

test "${fuzz_seconds} s libFuzzer session finds no crash (fuzz-resp)" {
    fuzz_session fuzz-resp run fuzz MAX_LEN=4096
}

test "snapshot and RESTORE seeds replay cleanly under gcc ASan+UBSan (replay-rdb)" {
    replay_corpus replay-rdb $rdb_corpus 20 200
}

test "${fuzz_seconds} s libFuzzer session on the loader finds no crash (fuzz-rdb)" {
    fuzz_session fuzz-rdb run-rdb fuzz-rdb
}

finish
