# fuzz_replay.tcl -- the fuzz targets of tests/fuzz/ in the normal suite:
# the request parser (resp), the snapshot loader (rdb), RESTORE (restore),
# the AOF loader and manifest (aof), the replication handshake parsers
# (repl) and the config parser (config). For each, its committed seed
# corpus is replayed, then it is fuzzed for a few seconds, with ASan and
# UBSan:
#   - with clang and libFuzzer: the corpus through ./fuzz-<name>, then a
#     libFuzzer session on a copy of it;
#   - without: ./replay-<name> (gcc, standalone.c) replays the corpus and
#     runs random mutations of it for the same time.
# Either way a crash, sanitizer report or broken invariant fails the test.
# Needs no server. Skipped, with the reason, only when neither compiler
# can build the target.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set root [file normalize [file join [file dirname [info script]] .. ..]]
set fuzzdir [file join $root tests fuzz]

# name  corpus  seeds(min max)  seconds  max_len
set targets {
    resp    corpus          20 60   8  4096
    rdb     corpus-rdb      20 200  6  65536
    restore corpus-restore  20 100  6  65536
    aof     corpus-aof      15 100  6  16384
    repl    corpus-repl     25 100  4  2048
    config  corpus-config   10 100  5  4096
}

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

proc save_log {name out} {
    set log [file join $::cairn(tmp) $name.log]
    set f [open $log w]
    puts $f $out
    close $f
    return $log
}

# libFuzzer: every seed once through ./fuzz-<name>, then a session.
proc libfuzzer_run {name corpus seeds seconds maxlen} {
    set bin [file join $::fuzzdir fuzz-$name]
    lassign [run_cmd $bin -runs=0 {*}$seeds] rc out
    if {$rc != 0} {
        error "fuzz-$name failed on the seed corpus (status $rc), log in [save_log $name-seeds $out]:\n[tail_lines $out 25]"
    }
    assert_equal [llength $seeds] [regexp -all -line {^Executed } $out] "seeds executed by fuzz-$name"
    set work [file join $::cairn(tmp) fuzz-$name]
    lassign [make_fuzz run-$name SECONDS=$seconds WORK=$work MAX_LEN=$maxlen] rc out
    set log [save_log fuzz-$name $out]
    set artifacts [glob -nocomplain -type f -directory [file join $work artifacts] *]
    if {$rc != 0 || [llength $artifacts]} {
        error "libFuzzer failed on $name (status $rc, artifacts: $artifacts), log in $log:\n[tail_lines $out 30]"
    }
    assert_match "*Done * runs in * second*" $out
    # The session really ran: it executed inputs.
    assert [regexp {stat::number_of_executed_units:\s+(\d+)} $out -> execs] "no exec count in the output"
    assert {$execs > 100} "too few executions ($execs)"
}

# No libFuzzer: the gcc replayer replays the seeds, then mutates them.
proc standalone_run {name corpus seeds seconds} {
    lassign [make_fuzz replay-$name] rc out
    if {$rc != 0} {
        # gcc is a build dependency, so a replayer that does not build is
        # broken code (a module the fuzz Makefile does not know), not a
        # missing tool: fail rather than skip.
        error "neither fuzz-$name (clang -fsanitize=fuzzer; try apt-get install libclang-rt-14-dev) nor replay-$name (gcc -fsanitize=address,undefined) builds: [tail_lines $out 10]"
    }
    set dir [file join $::fuzzdir $corpus]
    set old [pwd]
    cd $::cairn(tmp)
    lassign [run_cmd [file join $::fuzzdir replay-$name] -mutate $seconds $dir] rc out
    cd $old
    if {$rc != 0} {
        error "replay-$name failed (status $rc; a mutated input is in $::cairn(tmp)/standalone-crash), log in [save_log replay-$name $out]:\n[tail_lines $out 25]"
    }
    assert_match "*[llength $seeds] inputs replayed without a failure*" $out
    assert [regexp {(\d+) mutated inputs ran without a failure} $out -> runs] "no mutation count"
    assert {$runs > 100} "too few mutated runs ($runs)"
}

foreach {name corpus min max seconds maxlen} $targets {
    test "$name: seed corpus and a ${seconds} s fuzzing session under ASan+UBSan" {
        if {[auto_execok make] eq ""} { skip_test "make not found" }
        set seeds [lsort [glob -nocomplain -type f -directory [file join $fuzzdir $corpus] *]]
        assert_range [llength $seeds] $min $max "seed files in $corpus"
        lassign [make_fuzz fuzz-$name] rc out
        if {$rc == 0} {
            libfuzzer_run $name $corpus $seeds $seconds $maxlen
        } else {
            standalone_run $name $corpus $seeds $seconds
        }
    }
}

finish
