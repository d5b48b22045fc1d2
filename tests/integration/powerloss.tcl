# powerloss.tcl -- durability across a power cut, not just a process kill.
# The server runs under the LD_PRELOAD shim tests/helpers/powerloss.c,
# which records what a disk must keep (file contents as of their last
# fsync, directory entries as of the directory's last fsync). At a random
# moment the server and its fork children are frozen and SIGKILLed, the
# directory is rolled back to that durable state (tests/helpers/
# powerloss.tcl), and the server restarts without the shim:
#   - appendfsync always: every acknowledged INCR and SET is there, also
#     while BGREWRITEAOF runs and swaps the manifest;
#   - BGSAVE: dump.rdb loads, is one whole snapshot, and is no older than
#     the last BGSAVE reported done;
#   - everysec: the loss is printed, not asserted;
#   - a just-created AOF directory and CONFIG SET appendonly yes lose nothing.
# The check is shown to fail when cairn skips one fsync
# (CAIRN_DEBUG_SKIP_FSYNC=aof|dir|rdb). A quick run does a few rounds of
# each; tag `slow` adds many more. Counts are printed as "# ..." lines:
#   CAIRN_SERVER=$PWD/src/cairn-server tclsh tests/integration/powerloss.tcl
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers powerloss.tcl]

# The cut moments and torn tails are random; the seed is printed (timing
# still differs between runs, so a failure is reproduced in spirit only).
set seed [::cairn_h::envget CAIRN_POWERLOSS_SEED [expr {[clock milliseconds] % 1000000}]]
expr {srand($seed)}
set is_cairn [string match *cairn* [file tail $::cairn(server)]]
set nclients 4
set depth 8 ;# commands in flight per client

proc say {msg} {
    puts "# $msg"
    flush stdout
}

# ---- the AOF workload: acknowledged INCRs and SETs ----

proc load_reset {} {
    global acked sets nclients
    array unset acked
    for {set i 0} {$i < $nclients} {incr i} { set acked($i) 0 }
    set sets [dict create]
}

# The next batch: `depth` commands for each client (so fsync groups hold
# several clients' writes), alternating INCR ctr:I and a SET of a new key.
# A list of {client I key value}; key "" stands for the INCR.
proc load_batch {cs round nVar} {
    upvar 1 $nVar n
    set batch {}
    set i 0
    foreach c $cs {
        for {set d 0} {$d < $::depth} {incr d} {
            incr n
            lappend batch [expr {$d % 2 ? [list $c $i s:$round:$i:$n v$n] : [list $c $i "" ""]}]
        }
        incr i
    }
    return $batch
}

# Pipelined INCRs and SETs from every client until the server goes away;
# acked(i) and sets record what was acknowledged. With rw, a client that
# asks for BGREWRITEAOF between batches. Returns {incr N set N rewrites N}.
proc load_run {cs round {rw ""}} {
    global acked sets
    set counts [dict create incr 0 set 0 rewrites 0]
    set n 0
    while {1} {
        if {$rw ne ""} {
            if {[catch {r $rw BGREWRITEAOF} reply]} {
                if {![string match "*already in progress*" $reply]} break
            } elseif {[string match "*started*" $reply]} {
                dict incr counts rewrites
            }
        }
        set batch [load_batch $cs $round n]
        if {[catch {
            foreach op $batch {
                lassign $op c i key value
                if {$key eq ""} { send_cmd $c INCR ctr:$i } else { send_cmd $c SET $key $value }
            }
        }]} break
        foreach op $batch {
            lassign $op c i key value
            if {[catch {read_reply $c} reply]} { return $counts }
            if {$key eq ""} {
                assert {$reply > $acked($i)}
                set acked($i) $reply
                dict incr counts incr
            } else {
                assert_equal OK $reply
                dict set sets $key $value
                dict incr counts set
            }
        }
    }
    return $counts
}

# What of the acknowledged writes the restarted server lacks:
# {incr LOST set LOST}. Afterwards acked and sets describe what is there,
# so the next round continues from it.
proc load_check {srv} {
    global acked sets nclients
    set c [client $srv]
    set lost [dict create incr 0 set 0]
    for {set i 0} {$i < $nclients} {incr i} {
        set v [r $c GET ctr:$i]
        if {$v eq ""} { set v 0 }
        if {$v < $acked($i)} { dict incr lost incr [expr {$acked($i) - $v}] }
        # an unacknowledged INCR may have reached the disk: go on from there
        set acked($i) $v
    }
    set keys [dict keys $sets]
    for {set i 0} {$i < [llength $keys]} {incr i 500} {
        set batch [lrange $keys $i [expr {$i + 499}]]
        foreach k $batch v [r $c MGET {*}$batch] {
            if {$v ne [dict get $sets $k]} {
                dict incr lost set
                dict unset sets $k
            }
        }
    }
    close_client $c
    return $lost
}

# One round: a fresh baseline under the shim, the workload, a cut after
# a random delay, rollback (torn: keep part of unsynced tails), restart
# without the shim, check. Returns a dict of counts; srvVar gets the
# restarted server.
proc aof_round {srvVar round torn {rewrite 0}} {
    upvar 1 $srvVar srv
    set srv [powerloss_restart $srv]
    set cs {}
    for {set i 0} {$i < $::nclients} {incr i} { lappend cs [client $srv -timeout 5000] }
    set rw [expr {$rewrite ? [client $srv -timeout 5000] : ""}]
    set delay [format %.2f [expr {0.3 + rand() * 1.2}]]
    powerloss_schedule $srv $delay
    set counts [load_run $cs $round $rw]
    foreach c [concat $cs $rw] { catch {close_client $c} }
    set cut [powerloss_wait $srv]
    dict set counts children [lindex $cut 1]
    dict set counts delay $delay
    foreach kind {fsync fdatasync dirsync} { dict set counts $kind [powerloss_events $srv $kind] }
    set rb [powerloss_rollback $srv $torn]
    set srv [restart_server $srv]
    dict set counts lost [load_check $srv]
    dict set counts rollback $rb
    return $counts
}

proc round_line {round counts} {
    set rb [dict get $counts rollback]
    set line "round $round: cut at [dict get $counts delay] s"
    if {[dict get $counts rewrites]} {
        append line ", [dict get $counts rewrites] rewrites started, children killed: [dict get $counts children]"
    }
    append line "; acknowledged [dict get $counts incr] INCRs, [dict get $counts set] SETs;\
            seen [dict get $counts fdatasync] fdatasyncs, [dict get $counts fsync] fsyncs,\
            [dict get $counts dirsync] directory fsyncs; rollback dropped [dict get $rb dropped] bytes"
    if {[dict get $rb torn]} { append line " (a torn tail kept in [dict get $rb torn] file)" }
    foreach k {removed reverted revived} {
        if {[llength [dict get $rb $k]]} { append line ", $k [join [dict get $rb $k] {, }]" }
    }
    set lost [dict get $counts lost]
    append line "; lost [dict get $lost incr] INCRs, [dict get $lost set] SETs"
    return $line
}

# Rounds on one server; fails on the first loss unless report_only.
# Returns the totals.
proc aof_rounds {srvVar rounds rewrite report_only} {
    upvar 1 $srvVar srv
    set tot [dict create incr 0 set 0 lostincr 0 lostset 0 rewrites 0 during 0 seconds 0.0]
    for {set round 1} {$round <= $rounds} {incr round} {
        set counts [aof_round srv $round [expr {$round % 2 == 0}] $rewrite]
        say [round_line $round $counts]
        foreach k {incr set rewrites} { dict incr tot $k [dict get $counts $k] }
        dict set tot seconds [expr {[dict get $tot seconds] + [dict get $counts delay]}]
        if {[dict get $counts children]} { dict incr tot during }
        set lost [dict get $counts lost]
        dict incr tot lostincr [dict get $lost incr]
        dict incr tot lostset [dict get $lost set]
        if {!$report_only && ([dict get $lost incr] || [dict get $lost set])} {
            error "after the power cut of round $round, [dict get $lost incr] acknowledged INCRs and\
                    [dict get $lost set] acknowledged SETs are missing"
        }
    }
    return $tot
}

# A stopped server with the AOF on. Fresh: its first start (under the
# shim) creates the AOF directory, whose own entry must then be made
# durable too; else the directory is there before the baseline.
proc aof_server {policy {fresh 0}} {
    set srv [start_server]
    stop_server $srv
    dict set srv config [list appendonly yes appendfsync $policy]
    if {!$fresh} { stop_server [restart_server $srv] }
    load_reset
    return $srv
}

# body runs with cairn's test hook CAIRN_DEBUG_SKIP_FSYNC=what in the
# environment of every server it starts.
proc with_skip_fsync {what body} {
    set ::env(CAIRN_DEBUG_SKIP_FSYNC) $what
    try {
        uplevel 1 $body
    } finally {
        unset ::env(CAIRN_DEBUG_SKIP_FSYNC)
    }
}

say "seed $seed (CAIRN_POWERLOSS_SEED)"
if {[powerloss_shim] eq ""} {
    skip "power loss" "the shim is not built (make builds build/normal/powerloss.so)"
    finish
}

# The model itself, on a python3 process (os.fsync, os.rename and
# os.unlink are the libc calls the shim wraps): what a rollback keeps.
set model_script {
import os, sys
d = sys.argv[1]
p = lambda n: os.path.join(d, n)
def put(name, data, sync):
    fd = os.open(p(name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, data)
    if sync: os.fsync(fd)
    os.close(fd)
def dirsync():
    fd = os.open(d, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
put("a", b"A", 1); dirsync()    # created, fsynced, directory fsynced
put("a", b"ZZ", 0)              # rewritten, not fsynced (not an append)
put("b", b"B", 1)               # fsynced, but its directory was not
put("c", b"new", 0)             # baseline file rewritten, not fsynced
put("tmp", b"D2", 1); os.rename(p("tmp"), p("d"))   # rename, no directory fsync
os.unlink(p("e"))               # removal, no directory fsync
os.unlink(p("f")); put("g", b"G", 1)                # g may reuse f's inode
fd = os.open(p("tail"), os.O_WRONLY | os.O_APPEND)
os.write(fd, b"-more")          # appended, not fsynced: torn
os.close(fd)
}

test "the power-loss model: fsynced data and fsynced directory entries survive, nothing else" {
    if {[auto_execok python3] eq ""} { skip_test "needs python3" }
    set dir [file join $::cairn(tmp) model]
    file mkdir $dir
    foreach {name data} {c old d old e e f f tail head} { write_bytes [file join $dir $name] $data }
    set srv [dict create dir $dir]
    set state [powerloss_state $srv]
    file delete -force $state
    file mkdir $state
    exec env LD_PRELOAD=[powerloss_shim] CAIRN_POWERLOSS_DIR=$dir CAIRN_POWERLOSS_STATE=$state \
        python3 -c $model_script $dir
    set rb [powerloss_rollback $srv 1]
    say "model: rollback removed {[lsort [dict get $rb removed]]} reverted {[lsort [dict get $rb reverted]]}\
            revived {[lsort [dict get $rb revived]]}, torn tails [dict get $rb torn]"
    assert_equal {a c d e f tail} [lsort [glob -tails -directory $dir *]]
    foreach {name data} {a A c old d old e e f f} {
        assert_equal $data [read_bytes [file join $dir $name]] "content of $name"
    }
    set tail [read_bytes [file join $dir tail]]
    assert {[string match head* $tail] && [string first $tail head-more] == 0} "torn tail '$tail'"
    assert_equal {b g} [lsort [dict get $rb removed]]
    assert_equal {e f} [lsort [dict get $rb revived]]
}

test "appendfsync always: a just-created AOF directory survives power loss (its parent is fsynced)" {
    # Redis 7.0.15 fails this: it never fsyncs the directory holding
    # appenddirname, so a power cut can take the whole AOF.
    if {!$is_cairn} { skip_test "Redis 7.0 does not fsync the parent of a new appenddirname" }
    set srv [aof_server always 1]
    set counts [aof_round srv 1 0]
    say "fresh directory: [round_line 1 $counts]"
    assert_equal {incr 0 set 0} [dict get $counts lost]
    assert {[dict get $counts incr] > 0}
    stop_server $srv
}

# always: no acknowledged write may be lost (aof_rounds fails on one);
# everysec: the loss is only reported.
foreach {policy label rounds tags} {always "" 3 {} always " (slow)" 12 {slow}
                                    everysec "" 2 {} everysec " (slow)" 6 {slow}} {
    set what [expr {$policy eq "always" ? "acknowledged writes survive power loss" : "the loss at a power cut is reported"}]
    test "appendfsync $policy: $what, $rounds cuts$label" -tags $tags {
        set srv [aof_server $policy]
        set tot [aof_rounds srv $rounds 0 [expr {$policy eq "everysec"}]]
        # the loss in seconds of writes at the rate the clients saw
        set rate [expr {[dict get $tot incr] / [dict get $tot seconds]}]
        set secs [format %.2f [expr {[dict get $tot lostincr] / $rate / $rounds}]]
        say "$policy: of [dict get $tot incr] INCRs and [dict get $tot set] SETs acknowledged,\
                [dict get $tot lostincr] INCRs and [dict get $tot lostset] SETs were lost in $rounds power cuts\
                (on average the last $secs s of writes)"
        assert {[dict get $tot incr] > 0 && [dict get $tot set] > 0}
        stop_server $srv
    }
}

foreach {label rounds tags} {"" 3 {} " (slow)" 12 {slow}} {
    test "appendfsync always: acknowledged writes survive power loss during BGREWRITEAOF, $rounds cuts$label" -tags $tags {
        set srv [restart_server [aof_server always]]
        set c [client $srv]
        # a dataset big enough that the rewrite child runs for a while
        # (written, not DEBUG POPULATE: that one is not propagated to the AOF)
        set v [string repeat x 100]
        for {set k 0} {$k < 30000} {incr k 1000} {
            set mset {}
            for {set j $k} {$j < $k + 1000} {incr j} { lappend mset key:$j $v }
            r $c MSET {*}$mset
        }
        close_client $c
        set tot [aof_rounds srv $rounds 1 0]
        set c [client $srv]
        assert {[r $c DBSIZE] >= 30000 + [dict size $sets]}
        close_client $c
        say "rewrite: [dict get $tot incr] INCRs and [dict get $tot set] SETs acknowledged,\
                [dict get $tot rewrites] rewrites started, [dict get $tot during] of $rounds cuts\
                killed a rewrite child; none lost"
        assert {[dict get $tot rewrites] > 0}
        stop_server $srv
    }
}

test "CONFIG SET appendonly yes: the first base and the writes after it survive power loss" {
    if {!$is_cairn} { skip_test "Redis 7.0 does not fsync the parent of a new appenddirname" }
    set srv [powerloss_restart [start_server]]
    load_reset
    set c [client $srv]
    set mset {}
    for {set j 0} {$j < 1000} {incr j} { lappend mset before:$j $j }
    r $c MSET {*}$mset
    r $c CONFIG SET appendfsync always
    r $c CONFIG SET appendonly yes
    wait_for {[info_field $c aof_rewrite_scheduled persistence] == 0 &&
              [info_field $c aof_rewrite_in_progress persistence] == 0} 10000
    assert_equal ok [info_field $c aof_last_bgrewrite_status persistence]
    close_client $c
    set cs {}
    for {set i 0} {$i < $nclients} {incr i} { lappend cs [client $srv -timeout 5000] }
    set delay [format %.2f [expr {0.2 + rand() * 0.8}]]
    powerloss_schedule $srv $delay
    set counts [load_run $cs 1]
    foreach c $cs { catch {close_client $c} }
    powerloss_wait $srv
    set rb [powerloss_rollback $srv]
    dict set srv config {appendonly yes}
    set srv [restart_server $srv]
    set lost [load_check $srv]
    set c [client $srv]
    set missing [llength [lsearch -all -exact [r $c MGET {*}[dict keys $mset]] ""]]
    close_client $c
    say "appendonly switched on: cut at $delay s, [dict get $counts incr] INCRs and [dict get $counts set]\
            SETs acknowledged, lost [dict get $lost incr] and [dict get $lost set]; $missing of 1000 earlier\
            keys missing; rollback removed {[dict get $rb removed]} reverted {[dict get $rb reverted]}"
    assert_equal {incr 0 set 0} $lost
    assert_equal 0 $missing
    assert {[dict get $counts incr] > 0}
    stop_server $srv
}

# ---- BGSAVE ----

set ndata 2000

# Generation g is written atomically (gen = g, every data:j = g), then
# BGSAVE; a save reported done makes g acknowledged. Until the server goes
# away. Returns {saves N acked G gen G}.
proc bgsave_run {c noise} {
    set out [dict create saves 0 acked $::bgsave_acked gen $::bgsave_gen]
    while {1} {
        set g [expr {[dict get $out gen] + 1}]
        set mset {}
        for {set j 0} {$j < $::ndata} {incr j} { lappend mset data:$j $g }
        if {[catch {
            r $c MULTI
            r $c SET gen $g
            r $c MSET {*}$mset
            r $c EXEC
        }]} break
        dict set out gen $g
        if {[catch {r $c BGSAVE}]} break
        dict incr out saves
        set done 0
        while {![catch {info_field $c rdb_bgsave_in_progress persistence} busy]} {
            if {!$busy} { set done 1; break }
            catch {r $noise SET noise:[expr {int(rand() * 1000)}] [expr {rand()}]}
            after 5
        }
        if {!$done} break
        if {[catch {info_field $c rdb_last_bgsave_status persistence} st]} break
        if {$st eq "ok"} { dict set out acked $g }
    }
    return $out
}

# "" when dump.rdb loaded as one whole snapshot no older than the last
# acknowledged one, else what is wrong. srvVar gets the restarted server.
proc bgsave_check {srvVar} {
    upvar 1 $srvVar srv
    if {[catch {set srv [restart_server $srv]} err]} {
        return "the server does not start on the rolled-back dump.rdb: [lindex [split $err \n] 0]\
                ([string trim [log_tail $srv 1]])"
    }
    set c [client $srv]
    set g [r $c GET gen]
    set keys {}
    for {set j 0} {$j < $::ndata} {incr j} { lappend keys data:$j }
    set bad [lsearch -all -not -exact [r $c MGET {*}$keys] $g]
    close_client $c
    if {$g eq ""} { set g 0 }
    if {[llength $bad]} { return "dump.rdb is not one snapshot: gen $g but [llength $bad] data keys differ" }
    if {$g < $::bgsave_acked} { return "dump.rdb holds generation $g, older than the acknowledged $::bgsave_acked" }
    if {$g > $::bgsave_gen} { return "dump.rdb holds generation $g, never written" }
    return ""
}

proc bgsave_server {} {
    set srv [start_server -config {rdb-key-save-delay 100}]
    set c [client $srv]
    set mset {}
    for {set j 0} {$j < $::ndata} {incr j} { lappend mset data:$j 0 }
    r $c MSET {*}$mset
    r $c SET gen 0
    r $c CONFIG SET rdb-key-save-delay 0
    assert_equal OK [r $c SAVE]
    close_client $c
    stop_server $srv
    set ::bgsave_acked 0
    set ::bgsave_gen 0
    return $srv
}

# One round; returns {saves N children N verdict MSG} and updates the
# acknowledged and written generations.
proc bgsave_round {srvVar {min 0.2}} {
    upvar 1 $srvVar srv
    set srv [powerloss_restart $srv]
    set c [client $srv -timeout 5000]
    set noise [client $srv -timeout 5000]
    set delay [format %.2f [expr {$min + rand() * 1.0}]]
    powerloss_schedule $srv $delay
    set out [bgsave_run $c $noise]
    catch {close_client $c}
    catch {close_client $noise}
    set cut [powerloss_wait $srv]
    set ::bgsave_acked [dict get $out acked]
    set ::bgsave_gen [dict get $out gen]
    set rb [powerloss_rollback $srv [expr {rand() < 0.5}]]
    set verdict [bgsave_check srv]
    if {$verdict eq ""} {
        # the generation that survived is the new starting point
        set c [client $srv]
        set g [r $c GET gen]
        close_client $c
        set ::bgsave_acked [set ::bgsave_gen [expr {$g eq "" ? 0 : $g}]]
    }
    set line "cut at $delay s, [dict get $out saves] BGSAVEs started (last acknowledged generation\
            [dict get $out acked], last written [dict get $out gen]), children killed: [lindex $cut 1],\
            rollback removed {[dict get $rb removed]} reverted {[dict get $rb reverted]}"
    return [dict create line $line verdict $verdict children [lindex $cut 1] \
                saves [dict get $out saves] newer [expr {$::bgsave_gen > [dict get $out acked]}]]
}

foreach {label rounds tags} {"" 3 {} " (slow)" 12 {slow}} {
    test "BGSAVE: after a power cut dump.rdb is the old or the new snapshot, whole, $rounds cuts$label" -tags $tags {
        set srv [bgsave_server]
        set saves 0
        set during 0
        set newer 0
        for {set round 1} {$round <= $rounds} {incr round} {
            set res [bgsave_round srv]
            say "bgsave round $round: [dict get $res line]; [expr {[dict get $res newer] ? "the newer" : "the acknowledged"}] snapshot loaded"
            if {[dict get $res verdict] ne ""} { error "round $round: [dict get $res verdict]" }
            incr saves [dict get $res saves]
            if {[dict get $res children]} { incr during }
            incr newer [dict get $res newer]
        }
        say "bgsave: $saves BGSAVEs, $rounds power cuts ($during during a save); the acknowledged\
                snapshot survived every time, a newer one $newer times"
        assert {$saves > 0}
        stop_server $srv
    }
}

# ---- the check can fail: cairn skips one fsync on request ----

test "power loss is detected when cairn skips the AOF fdatasync (CAIRN_DEBUG_SKIP_FSYNC=aof)" {
    if {!$is_cairn} { skip_test "uses cairn's skip-fsync test hook" }
    set srv [aof_server always]
    with_skip_fsync aof { set counts [aof_round srv 1 0] }
    say "skip aof: [round_line 1 $counts]"
    assert {[dict get $counts lost incr] > 0 && [dict get $counts lost set] > 0} \
        "the power-loss check missed writes acknowledged without an fdatasync"
    stop_server $srv
}

test "power loss is detected when cairn skips the directory fsync of the manifest swap (CAIRN_DEBUG_SKIP_FSYNC=dir)" {
    if {!$is_cairn} { skip_test "uses cairn's skip-fsync test hook" }
    # the directory exists and is durable before the hook is on
    set srv [aof_server always]
    set srv [restart_server $srv]
    stop_server $srv
    with_skip_fsync dir { set srv [powerloss_restart $srv] }
    set c [client $srv]
    assert_match "*started*" [r $c BGREWRITEAOF]
    wait_for {[info_field $c aof_rewrite_in_progress persistence] == 0} 10000
    assert_equal ok [info_field $c aof_last_bgrewrite_status persistence]
    for {set i 1} {$i <= 200} {incr i} { assert_equal $i [r $c INCR ctr:0] }
    close_client $c
    powerloss_schedule $srv 0
    powerloss_wait $srv
    set rb [powerloss_rollback $srv]
    say "skip dir: rollback removed {[dict get $rb removed]} revived {[dict get $rb revived]} reverted {[dict get $rb reverted]}"
    set srv [restart_server $srv]
    set c [client $srv]
    set v [r $c GET ctr:0]
    say "skip dir: 200 INCRs acknowledged after the rewrite, [expr {$v eq "" ? 0 : $v}] found after the power cut"
    assert {$v eq "" || $v < 200} "the power-loss check missed a manifest swap whose directory was not fsynced"
    stop_server $srv
}

foreach what {rdb dir} {
    test "power loss is detected when cairn skips the BGSAVE's $what fsync (CAIRN_DEBUG_SKIP_FSYNC=$what)" {
        if {!$is_cairn} { skip_test "uses cairn's skip-fsync test hook" }
        set srv [bgsave_server]
        set verdict ""
        with_skip_fsync $what {
            # late cuts, so that a BGSAVE was reported done
            for {set round 1} {$round <= 5 && $verdict eq ""} {incr round} {
                set res [bgsave_round srv 1.0]
                set verdict [dict get $res verdict]
                say "skip $what, round $round: [dict get $res line]; [expr {$verdict eq "" ? "not detected" : "detected: $verdict"}]"
            }
        }
        assert {$verdict ne ""} "the power-loss check missed a BGSAVE without its $what fsync"
        catch {stop_server $srv}
    }
}

finish
