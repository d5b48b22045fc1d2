# aof.tcl -- the append-only file: Redis 7.0's multi-part layout (manifest,
# base, incremental files), restarts under each appendfsync policy,
# BGREWRITEAOF and CONFIG SET appendonly, loading Redis 7.0's directory and
# Redis 7.0 loading ours (same DEBUG DIGEST), Redis 6 single files, and
# damaged files: a cut tail (aof-load-truncated yes/no), a corrupt byte, a
# missing manifest. The crash test (SIGKILL under appendfsync always) is in
# aof_crash.tcl.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]

set ref $::cairn(reference)
if {$ref eq "" && [file executable /usr/bin/redis-server]} { set ref /usr/bin/redis-server }
set is_cairn [string match *cairn* [file tail $::cairn(server)]]

proc aofdir {srv} { return [file join [dict get $srv dir] appendonlydir] }
proc append_file {path bytes} {
    set f [open $path ab]
    puts -nonewline $f $bytes
    close $f
}
proc manifest {srv} { return [read_bytes [file join [aofdir $srv] appendonly.aof.manifest]] }
# The last incremental file named by the manifest.
proc last_incr {srv} {
    set name ""
    foreach line [split [manifest $srv] \n] {
        if {[lindex $line 5] eq "i"} { set name [lindex $line 1] }
    }
    return [file join [aofdir $srv] $name]
}
# Start-up must fail: returns the error text (with the log tail).
proc restart_fails {srv} {
    if {![catch {restart_server $srv} new]} {
        kill_server $new
        error "the server started"
    }
    return $new
}
# SIGKILL once the stream bytes are in the file: under everysec a write can
# wait (up to 2 s) for a running fsync, and a crash loses what waits.
proc crash {srv c} {
    wait_for {[info_field $c aof_buffer_length] == 0}
    kill_server $srv
}
proc aof_server {args} {
    return [start_server -config [list appendonly yes {*}$args]]
}
proc with_binary {srv bin} {
    dict set srv binary $bin
    return $srv
}

test "appendonly yes starts with a base, an incremental file and Redis' manifest" {
    set srv [aof_server appendfsync always]
    set c [client $srv]
    assert_equal "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" \
        [manifest $srv]
    set base [read_bytes [file join [aofdir $srv] appendonly.aof.1.base.rdb]]
    assert_equal REDIS [string range $base 0 4]
    # Its aof-base AUX field is 1, as in Redis' preambles (a SAVE writes 0).
    assert {[string first "\xfa\x08aof-base\xc0\x01" $base] > 0}
    r $c SET k v
    r $c SELECT 3
    r $c SET k3 v3
    # Under always the reply waits until the file has it.
    set incr [read_bytes [last_incr $srv]]
    assert_equal "*2\r\n\$6\r\nSELECT\r\n\$1\r\n0\r\n*3\r\n\$3\r\nSET\r\n\$1\r\nk\r\n\$1\r\nv\r\n*2\r\n\$6\r\nSELECT\r\n\$1\r\n3\r\n*3\r\n\$3\r\nSET\r\n\$2\r\nk3\r\n\$2\r\nv3\r\n" \
        $incr
    assert_equal 1 [info_field $c aof_enabled]
    assert_equal ok [info_field $c aof_last_write_status]
    assert_equal [string length $incr] [expr {[info_field $c aof_current_size] - [info_field $c aof_base_size]}]
    kill_server $srv
}

test "INFO persistence has Redis 7.0's aof fields in its order" {
    if {$ref eq ""} { skip_test "no reference server" }
    set names {}
    foreach bin [list $::cairn(server) $ref] {
        set s [start_server -binary $bin -config {appendonly yes}]
        set c [client $s]
        set keys {}
        foreach {k v} [server_info $c persistence] {
            if {[string match aof_* $k] || [string match module_fork* $k]} { lappend keys $k }
        }
        lappend names $keys
        kill_server $s
    }
    assert_equal [lindex $names 1] [lindex $names 0]
}

foreach policy {always everysec no} {
    test "restart round trip under appendfsync $policy (clean stop and SIGKILL)" {
        set srv [aof_server appendfsync $policy]
        set c [client $srv]
        rdbdata_populate $c
        for {set i 0} {$i < 100} {incr i} { r $c INCR counter }
        r $c INCRBYFLOAT float 1.5
        r $c SET volatile x PX 100000
        r $c MULTI
        r $c LPUSH tx a b
        r $c SET tx2 y
        r $c EXEC
        r $c SET gone x PX 1
        after 20
        r $c GET gone
        set digest [r $c DEBUG DIGEST]
        set srv [restart_server $srv]
        set c [client $srv]
        assert_equal $digest [r $c DEBUG DIGEST]
        assert_equal 100 [r $c GET counter]
        r $c INCR counter
        set digest [r $c DEBUG DIGEST]
        # A process crash loses nothing either: every turn's bytes were
        # written (under always also fsynced) before the replies.
        crash $srv $c
        set srv [restart_server $srv]
        set c [client $srv]
        assert_equal $digest [r $c DEBUG DIGEST]
        assert_range [r $c PTTL volatile] 1 100000
        kill_server $srv
    }
}

test "BGREWRITEAOF: new base and incr, old files removed after the manifest swap" {
    set srv [aof_server]
    set c [client $srv]
    rdbdata_populate $c
    r $c SET before 1
    assert_equal "Background append only file rewriting started" [r $c BGREWRITEAOF]
    r $c SET during 1
    wait_for {[info_field $c aof_rewrite_in_progress] == 0 && [info_field $c aof_rewrites] == 1}
    r $c SET after 1
    assert_equal "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n" \
        [manifest $srv]
    assert_equal [lsort {appendonly.aof.2.base.rdb appendonly.aof.2.incr.aof appendonly.aof.manifest}] \
        [lsort [glob -tails -directory [aofdir $srv] *]]
    assert_equal ok [info_field $c aof_last_bgrewrite_status]
    set digest [r $c DEBUG DIGEST]
    crash $srv $c
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal {1 1 1} [r $c MGET before during after]
    kill_server $srv
}

test "SIGKILL during a rewrite: the manifest already lists the new incr file, nothing is lost" {
    set srv [aof_server rdb-key-save-delay 200000]
    set c [client $srv]
    for {set i 0} {$i < 20} {incr i} { r $c SET k$i v$i }
    r $c BGREWRITEAOF
    r $c SET during 1
    r $c INCR n
    assert_equal 1 [info_field $c aof_rewrite_in_progress]
    # old base, old incr, and the new incr written since the fork
    assert_equal "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\nfile appendonly.aof.2.incr.aof seq 2 type i\n" \
        [manifest $srv]
    set digest [r $c DEBUG DIGEST]
    set children {}
    catch {set children [exec pgrep -P [dict get $srv pid]]}
    crash $srv $c
    foreach p $children { catch {exec kill -9 $p} }
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    if {$is_cairn} {
        # the orphaned child's temp file is gone
        assert_equal {} [glob -nocomplain -directory [aofdir $srv] temp-*]
    }
    # the next rewrite folds all three files into one base
    r $c CONFIG SET rdb-key-save-delay 0
    r $c BGREWRITEAOF
    wait_for {[info_field $c aof_rewrite_in_progress] == 0 && [info_field $c aof_rewrites] == 1}
    assert_equal "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.3.incr.aof seq 3 type i\n" [manifest $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    stop_server $srv
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    kill_server $srv
}

test "A leftover file with the next incr name (a crash before its manifest) starts empty" {
    set srv [aof_server]
    set c [client $srv]
    r $c SET a 1
    write_bytes [file join [aofdir $srv] appendonly.aof.2.incr.aof] \
        "*3\r\n\$3\r\nSET\r\n\$5\r\nstale\r\n\$1\r\n1\r\n"
    r $c BGREWRITEAOF
    wait_for {[info_field $c aof_rewrites] == 1 && [info_field $c aof_rewrite_in_progress] == 0}
    r $c SET b 2
    crash $srv $c
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal {1 2 {}} [r $c MGET a b stale]
    kill_server $srv
}

test "aof-use-rdb-preamble no: the base is commands, loaded by this server and redis-server" {
    set srv [aof_server aof-use-rdb-preamble no]
    set c [client $srv]
    rdbdata_populate $c
    r $c BGREWRITEAOF
    wait_for {[info_field $c aof_rewrites] == 1 && [info_field $c aof_rewrite_in_progress] == 0}
    assert_match "file appendonly.aof.2.base.aof seq 2 type b*" [manifest $srv]
    set base [read_bytes [file join [aofdir $srv] appendonly.aof.2.base.aof]]
    assert_equal "*" [string index $base 0]
    set digest [r $c DEBUG DIGEST]
    set meta [rdbdata_meta $c]
    crash $srv $c
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal $meta [rdbdata_meta $c]
    if {$ref ne ""} {
        kill_server $srv
        set rs [restart_server [with_binary $srv $ref]]
        set rc [client $rs]
        assert_equal $digest [r $rc DEBUG DIGEST]
        kill_server $rs
    } else {
        kill_server $srv
    }
}

test "redis-server's appendonly directory loads here with the same data" {
    if {$ref eq ""} { skip_test "no reference server" }
    set rs [start_server -binary $ref -config {appendonly yes}]
    set rc [client $rs]
    rdbdata_populate $rc
    # a rewrite (an RDB base from redis) and more commands after it
    r $rc BGREWRITEAOF
    wait_for {[info_field $rc aof_rewrite_in_progress] == 0 && [info_field $rc aof_rewrites] == 1}
    r $rc SET after-rewrite 1
    r $rc INCRBY ctr 7
    r $rc EXPIRE after-rewrite 5000
    r $rc SELECT 4
    r $rc HSET h a 1
    set digest [r $rc DEBUG DIGEST]
    set meta [rdbdata_meta $rc]
    stop_server $rs
    set srv [restart_server [with_binary $rs $::cairn(server)]]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal $meta [rdbdata_meta $c]
    # ... and keeps appending to the same directory
    r $c SET mine 1
    set digest [r $c DEBUG DIGEST]
    stop_server $srv
    set rs [restart_server [with_binary $srv $ref]]
    set rc [client $rs]
    assert_equal $digest [r $rc DEBUG DIGEST]
    kill_server $rs
}

test "This server's appendonly directory loads into redis-server with the same data" {
    if {$ref eq ""} { skip_test "no reference server" }
    set srv [aof_server]
    set c [client $srv]
    rdbdata_populate $c
    r $c BGREWRITEAOF
    wait_for {[info_field $c aof_rewrite_in_progress] == 0 && [info_field $c aof_rewrites] == 1}
    r $c SET after 1
    r $c SELECT 9
    r $c ZADD z 1 a 2 b
    r $c SET ttl v EX 5000
    set digest [r $c DEBUG DIGEST]
    set meta [rdbdata_meta $c]
    stop_server $srv
    set rs [restart_server [with_binary $srv $ref]]
    set rc [client $rs]
    assert_equal $digest [r $rc DEBUG DIGEST]
    assert_equal $meta [rdbdata_meta $rc]
    kill_server $rs
}

foreach policy {everysec always} {
    test "aof-timestamp-enabled under $policy: #TS annotations, loaded here and by redis-server" {
        set srv [aof_server appendfsync $policy aof-timestamp-enabled yes]
        set c [client $srv]
        r $c SET a 1
        after 1100
        r $c MULTI
        r $c INCR n
        r $c INCR n
        r $c EXEC
        after 1100
        r $c SET b 2
        wait_for {[info_field $c aof_buffer_length] == 0}
        set bytes [read_bytes [last_incr $srv]]
        assert {[regexp -all {#TS:[0-9]+\r\n\*} $bytes] >= 3} "annotations before commands: $bytes"
        assert {![regexp {#TS:[0-9]+\r\n\*2\r\n\$4\r\nINCR} $bytes]} "never inside MULTI/EXEC"
        set digest [r $c DEBUG DIGEST]
        kill_server $srv
        set srv [restart_server $srv]
        set c [client $srv]
        assert_equal $digest [r $c DEBUG DIGEST]
        assert_equal {1 2 2} [r $c MGET a n b]
        kill_server $srv
        if {$ref ne ""} {
            set rs [restart_server [with_binary $srv $ref]]
            set rc [client $rs]
            assert_equal $digest [r $rc DEBUG DIGEST]
            kill_server $rs
        }
    }
}

test "A Redis 6 single-file AOF (commands, or an RDB preamble and commands) is loaded and moved into the directory" {
    # Plain commands.
    set srv [start_server]
    set c [client $srv]
    kill_server $srv
    write_bytes [file join [dict get $srv dir] appendonly.aof] \
        "*2\r\n\$6\r\nSELECT\r\n\$1\r\n0\r\n*3\r\n\$3\r\nSET\r\n\$3\r\nold\r\n\$3\r\nsix\r\n*2\r\n\$4\r\nINCR\r\n\$1\r\nn\r\n"
    dict set srv config {appendonly yes}
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal {six 1} [r $c MGET old n]
    assert_equal "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" [manifest $srv]
    assert_equal 0 [file exists [file join [dict get $srv dir] appendonly.aof]]
    r $c INCR n
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal 2 [r $c GET n]
    kill_server $srv

    # An RDB preamble followed by commands (aof-use-rdb-preamble in Redis 6).
    set srv [start_server]
    set c [client $srv]
    rdbdata_populate $c
    r $c SAVE
    set rdb [read_bytes [file join [dict get $srv dir] dump.rdb]]
    r $c SET tail yes
    set digest [r $c DEBUG DIGEST]
    kill_server $srv
    file delete [file join [dict get $srv dir] dump.rdb]
    write_bytes [file join [dict get $srv dir] appendonly.aof] \
        "$rdb*3\r\n\$3\r\nSET\r\n\$4\r\ntail\r\n\$3\r\nyes\r\n"
    dict set srv config {appendonly yes}
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    kill_server $srv
}

test "A command cut in the middle: dropped with aof-load-truncated yes, start-up refused with no" {
    set srv [aof_server]
    set c [client $srv]
    r $c SET a 1
    r $c SET b 2
    crash $srv $c
    set incr [last_incr $srv]
    set good [file size $incr]
    append_file $incr "*3\r\n\$3\r\nSET\r\n\$1\r\nc\r\n\$1"
    dict set srv config {appendonly yes aof-load-truncated no}
    set err [restart_fails $srv]
    # (Redis names the file but not the offset)
    assert_match "*Unexpected end of file*appendonly.aof.1.incr.aof*" $err
    if {$is_cairn} { assert_match "*appendonly.aof.1.incr.aof at offset $good*" $err }
    dict set srv config {appendonly yes aof-load-truncated yes}
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal {1 2 {}} [r $c MGET a b c]
    assert_equal $good [file size $incr]
    assert_match "*Truncating the AOF*appendonly.aof.1.incr.aof*offset $good*" [log_tail $srv 30]
    # appending goes on after the cut
    r $c SET d 4
    crash $srv $c
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal {1 2 {} 4} [r $c MGET a b c d]
    kill_server $srv
}

test "cairn-check-aof reports a cut tail and --fix truncates it" {
    if {!$is_cairn} { skip_test "cairn-check-aof is a mode of cairn-server" }
    set tool [file join [file dirname [info script]] .. .. utils cairn-check-aof]
    set env(CAIRN_SERVER) $::cairn(server)
    set srv [aof_server]
    set c [client $srv]
    r $c SET a 1
    r $c MULTI
    r $c SET b 2
    r $c INCR n
    r $c EXEC
    crash $srv $c
    set m [file join [aofdir $srv] appendonly.aof.manifest]
    assert_match "*appendonly.aof.1.incr.aof: valid*All AOF files and the manifest are valid*" [exec $tool $m]
    set incr [last_incr $srv]
    set good [file size $incr]
    append_file $incr "*2\r\n\$4\r\nINCR\r\n\$1"
    assert {[catch {exec $tool $m} out]}
    assert_match "*ok_up_to=$good*cut in the middle*Use the --fix option*" $out
    assert_match "*Successfully truncated*" [exec $tool --fix $m]
    assert_equal $good [file size $incr]
    # damage inside the last file: reported with the offset, fixed by cutting there
    set bytes [read_bytes $incr]
    set pos [string first "*3\r\n\$3\r\nSET\r\n\$1\r\nb" $bytes]
    write_bytes $incr [string replace $bytes $pos $pos "?"]
    assert {[catch {exec $tool $incr} out]}
    assert_match "*ok_up_to=$pos*offset $pos: expected a multibulk header*" $out
    unset env(CAIRN_SERVER)
}

test "A transaction without its EXEC at the end is dropped whole" {
    set srv [aof_server]
    set c [client $srv]
    r $c SET a 1
    crash $srv $c
    set incr [last_incr $srv]
    set good [file size $incr]
    append_file $incr "*1\r\n\$5\r\nMULTI\r\n*3\r\n\$3\r\nSET\r\n\$1\r\nx\r\n\$1\r\n1\r\n"
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal {1 {}} [r $c MGET a x]
    assert_equal $good [file size $incr]
    kill_server $srv
}

test "A corrupt byte in the middle stops start-up with the file, offset and reason" {
    set srv [aof_server]
    set c [client $srv]
    r $c SET a 1
    r $c SET b 2
    r $c SET c 3
    crash $srv $c
    set incr [last_incr $srv]
    set bytes [read_bytes $incr]
    # the '*' of the SET b command
    set pos [string first "*3\r\n\$3\r\nSET\r\n\$1\r\nb" $bytes]
    write_bytes $incr [string replace $bytes $pos $pos "!"]
    set err [restart_fails $srv]
    # (Redis names the file, not the offset or the reason)
    assert_match "*Bad file format*appendonly.aof.1.incr.aof*" $err
    if {$is_cairn} { assert_match "*offset $pos: expected a multibulk header*" $err }
    # a bulk header damaged
    write_bytes $incr [string replace $bytes [expr {$pos + 4}] [expr {$pos + 4}] "x"]
    set err [restart_fails $srv]
    if {$is_cairn} { assert_match "*Bad file format*offset $pos: expected a bulk header*" $err }
    # an unknown command
    write_bytes $incr [string replace $bytes [expr {$pos + 8}] [expr {$pos + 8}] "Q"]
    set err [restart_fails $srv]
    assert_match "*Unknown command 'QET' reading the append only file appendonly.aof.1.incr.aof*" $err
    if {$is_cairn} { assert_match "*offset $pos*" $err }
}

test "A cut command in a file that is not the last one is corruption, not a truncated tail" {
    set srv [aof_server]
    set c [client $srv]
    r $c SET a 1
    r $c BGREWRITEAOF
    wait_for {[info_field $c aof_rewrites] == 1 && [info_field $c aof_rewrite_in_progress] == 0}
    r $c SET b 2
    crash $srv $c
    # Make the manifest list a cut file before the current incr file.
    set d [aofdir $srv]
    write_bytes [file join $d appendonly.aof.1.incr.aof] "*3\r\n\$3\r\nSET\r\n\$1\r\nx"
    write_bytes [file join $d appendonly.aof.manifest] \
        "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\nfile appendonly.aof.2.incr.aof seq 2 type i\n"
    set err [restart_fails $srv]
    assert_match "*appendonly.aof.1.incr.aof*" $err
    if {$is_cairn} { assert_match "*not the last file*" $err }
}

test "A missing manifest with files left in the directory refuses to start" {
    if {!$is_cairn} { skip_test "Redis starts empty and writes a new base over the old one" }
    set srv [aof_server]
    set c [client $srv]
    r $c SET a 1
    crash $srv $c
    file delete [file join [aofdir $srv] appendonly.aof.manifest]
    set err [restart_fails $srv]
    assert_match "*no manifest*refusing to start*" $err
    # the data is untouched
    assert_match "*SET*" [read_bytes [file join [aofdir $srv] appendonly.aof.1.incr.aof]]
    # a manifest naming a file that is gone
    write_bytes [file join [aofdir $srv] appendonly.aof.manifest] \
        "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.7.incr.aof seq 7 type i\n"
    set err [restart_fails $srv]
    assert_match "*appendonly.aof.7.incr.aof*doesn't exist*" $err
    # a malformed manifest
    write_bytes [file join [aofdir $srv] appendonly.aof.manifest] "file appendonly.aof.1.base.rdb seq 1\n"
    set err [restart_fails $srv]
    assert_match "*MANIFEST*line 1*Invalid AOF manifest file format*" $err
}

test "Manifest parsing: comments, quoted names, key order, history entries" {
    set srv [aof_server]
    set c [client $srv]
    r $c SET a 1
    crash $srv $c
    set d [aofdir $srv]
    file rename [file join $d appendonly.aof.1.incr.aof] [file join $d "my incr.aof"]
    write_bytes [file join $d appendonly.aof.manifest] \
        "# a comment\nfile appendonly.aof.1.base.rdb seq 1 type b\ntype h seq 3 file gone.aof\nfile \"my incr.aof\" seq 4 type i extra x\n"
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal 1 [r $c GET a]
    # rewritten in Redis' form: history deleted, the name quoted
    assert_equal "file appendonly.aof.1.base.rdb seq 1 type b\nfile \"my incr.aof\" seq 4 type i\n" [manifest $srv]
    kill_server $srv
}

test "CONFIG SET appendonly yes at run time starts with a rewrite; no stops appending" {
    set srv [start_server]
    set c [client $srv]
    rdbdata_populate $c
    r $c SET before 1
    assert_equal OK [r $c CONFIG SET appendonly yes]
    r $c SET during 1
    wait_for {[info_field $c aof_rewrite_in_progress] == 0 && [info_field $c aof_rewrites] == 1}
    assert_equal 1 [info_field $c aof_enabled]
    assert_equal "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" [manifest $srv]
    r $c SET after 1
    set digest [r $c DEBUG DIGEST]
    crash $srv $c
    dict set srv config {appendonly yes}
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal OK [r $c CONFIG SET appendonly no]
    assert_equal 0 [info_field $c aof_enabled]
    set size [file size [last_incr $srv]]
    r $c SET ignored 1
    assert_equal $size [file size [last_incr $srv]]
    kill_server $srv
}

test "CONFIG SET appendonly yes: writes go to a temp incr file until the first rewrite; a failed one removes it and is retried at once" {
    set srv [start_server -config {rdb-key-save-delay 1000000}]
    set c [client $srv]
    for {set i 0} {$i < 10} {incr i} { r $c SET k$i v }
    set tmp [file join [aofdir $srv] temp-appendonly.aof.incr]
    assert_equal OK [r $c CONFIG SET appendonly yes]
    assert_equal 1 [info_field $c aof_rewrite_in_progress]
    r $c SET during 1
    wait_for {[file exists $tmp] && [file size $tmp] > 0}
    assert {![file exists [file join [aofdir $srv] appendonly.aof.manifest]]} "a manifest before the first base"
    # two failures in a row: each removes the temp file, the next starts at once
    foreach round {1 2} {
        set child [exec pgrep -P [dict get $srv pid]]
        if {$round == 2} { r $c CONFIG SET rdb-key-save-delay 0 }
        exec kill -9 $child
        wait_for {[regexp -all {Removing the temp incr aof file temp-appendonly.aof.incr} [read_bytes [dict get $srv log]]] == $round}
        wait_for {[info_field $c aof_rewrites] == $round + 1} 3000 "the rewrite was not retried at once"
        r $c SET during$round 1
        if {$round == 1} { wait_for {![catch {exec pgrep -P [dict get $srv pid]}]} }
    }
    wait_for {[info_field $c aof_rewrite_in_progress] == 0 && [info_field $c aof_last_bgrewrite_status] eq "ok"}
    assert_equal 1 [info_field $c aof_enabled]
    assert_equal "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" [manifest $srv]
    assert {![file exists $tmp]} "the temp incr file was not renamed"
    r $c SET after 1
    set digest [r $c DEBUG DIGEST]
    crash $srv $c
    dict set srv config {appendonly yes}
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal {1 1 1 1 v} [r $c MGET during during1 during2 after k9]
    kill_server $srv
}

test "BGREWRITEAOF with appendonly no, scheduled behind a BGSAVE, runs once the BGSAVE ends" {
    set srv [start_server -config {rdb-key-save-delay 1000000}]
    set c [client $srv]
    r $c SET k v
    r $c BGSAVE
    assert_match "*scheduled*" [r $c BGREWRITEAOF]
    assert_equal 1 [info_field $c aof_rewrite_scheduled]
    r $c CONFIG SET rdb-key-save-delay 0
    exec kill -9 [exec pgrep -P [dict get $srv pid]]
    wait_for {[info_field $c aof_rewrite_scheduled] == 0 && [info_field $c aof_rewrite_in_progress] == 0} 5000 \
        "the scheduled rewrite never ran"
    assert_equal ok [info_field $c aof_last_bgrewrite_status]
    assert_match "*type b*" [manifest $srv]
    kill_server $srv
}

test "Clients connecting while the AOF loads get -LOADING; INFO answers" {
    set srv [aof_server]
    set c [client $srv]
    r $c DEBUG POPULATE 20000 key 10
    r $c BGREWRITEAOF
    wait_for {[info_field $c aof_rewrites] == 1 && [info_field $c aof_rewrite_in_progress] == 0}
    for {set i 0} {$i < 3000} {incr i} { send_cmd $c INCR n }
    for {set i 0} {$i < 3000} {incr i} { read_reply $c }
    r $c SET marker here
    set digest [r $c DEBUG DIGEST]
    stop_server $srv
    for {set i 0} {$i < 100} {incr i} {
        if {[::cairn_h::port_free [dict get $srv port]]} break
        after 50
    }
    # key-load-delay slows the RDB base down (Redis 7.0 has it too)
    dict set srv config {appendonly yes key-load-delay 100 loading-process-events-interval-bytes 1024}
    set srv [::cairn_h::spawn $srv]
    set deadline [expr {[clock milliseconds] + 10000}]
    while {[catch {client $srv} c]} {
        if {[clock milliseconds] > $deadline} { error "cannot connect while loading: $c" }
        after 10
    }
    assert_error "LOADING*" {r $c GET marker}
    assert_equal 1 [info_field $c loading]
    # key-load-delay makes the load take seconds; a sanitized build on a
    # loaded machine was seen at 9.6 s, so the default 10 s wait is short.
    wait_for {[info_field $c loading] == 0} 60000
    assert_equal here [r $c GET marker]
    assert_equal $digest [r $c DEBUG DIGEST]
    kill_server $srv
}

test "SHUTDOWN while the first base is being written is refused; FORCE exits" {
    set srv [start_server -config {rdb-key-save-delay 100000}]
    set c [client $srv]
    for {set i 0} {$i < 50} {incr i} { r $c SET k$i v }
    r $c CONFIG SET appendonly yes
    assert_equal 1 [info_field $c aof_rewrite_in_progress]
    assert_error "*Errors trying to SHUTDOWN*" {r $c SHUTDOWN}
    assert_match "*Writing initial AOF, can't exit*" [log_tail $srv 20]
    assert_equal PONG [r $c PING]
    catch {r $c SHUTDOWN FORCE}
    wait_for {![server_alive $srv]}
}

test "CONFIG SET appendonly yes under appendfsync always while a BGSAVE runs" {
    set srv [start_server -config {appendfsync always rdb-key-save-delay 20000}]
    set c [client $srv]
    for {set i 0} {$i < 50} {incr i} { r $c SET k$i v }
    r $c BGSAVE
    assert_equal OK [r $c CONFIG SET appendonly yes]
    assert_equal 1 [info_field $c aof_rewrite_scheduled]
    # replies keep coming while the first base waits for the BGSAVE
    for {set i 0} {$i < 20} {incr i} { assert_equal [expr {$i + 1}] [r $c INCR n] }
    r $c CONFIG SET rdb-key-save-delay 0
    wait_for {[info_field $c aof_rewrites] == 1 && [info_field $c aof_rewrite_in_progress] == 0} 20000
    for {set i 0} {$i < 20} {incr i} { r $c INCR n }
    set digest [r $c DEBUG DIGEST]
    kill_server $srv
    dict set srv config {appendonly yes appendfsync always}
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal 40 [r $c GET n]
    kill_server $srv
}

test "Automatic rewrite when the AOF doubles past auto-aof-rewrite-min-size" {
    set srv [aof_server auto-aof-rewrite-min-size 10kb auto-aof-rewrite-percentage 100]
    set c [client $srv]
    assert_equal 0 [info_field $c aof_rewrites]
    for {set i 0} {$i < 300} {incr i} { r $c SET key:$i [string repeat x 100] }
    wait_for {[info_field $c aof_rewrites] >= 1 && [info_field $c aof_rewrite_in_progress] == 0}
    assert_match "*Starting automatic rewriting of AOF*" [log_tail $srv 40]
    set digest [r $c DEBUG DIGEST]
    crash $srv $c
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    kill_server $srv
}

test "BGREWRITEAOF during BGSAVE is scheduled; a second one is refused while it runs" {
    set srv [aof_server rdb-key-save-delay 20000]
    set c [client $srv]
    for {set i 0} {$i < 50} {incr i} { r $c SET k$i v }
    r $c BGSAVE
    assert_equal "Background append only file rewriting scheduled" [r $c BGREWRITEAOF]
    assert_equal 1 [info_field $c aof_rewrite_scheduled]
    r $c CONFIG SET rdb-key-save-delay 0
    wait_for {[info_field $c aof_rewrites] == 1 && [info_field $c aof_rewrite_in_progress] == 0} 20000
    assert_equal 0 [info_field $c aof_rewrite_scheduled]
    kill_server $srv
} 

test "appendfsync can change at run time; replies keep flowing" {
    set srv [aof_server appendfsync everysec]
    set c [client $srv]
    foreach p {always no everysec always} {
        r $c CONFIG SET appendfsync $p
        for {set i 0} {$i < 50} {incr i} { r $c INCR n }
    }
    assert_equal 200 [r $c GET n]
    crash $srv $c
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal 200 [r $c GET n]
    kill_server $srv
}

test "appendfsync always: pipelined clients are all answered, in order, with everything on disk" {
    set srv [aof_server appendfsync always]
    set cs {}
    for {set i 0} {$i < 5} {incr i} { lappend cs [client $srv] }
    for {set round 0} {$round < 20} {incr round} {
        foreach c $cs {
            for {set j 0} {$j < 10} {incr j} { send_cmd $c INCR ctr }
            send_cmd $c GET ctr
        }
        foreach c $cs {
            set last 0
            for {set j 0} {$j < 10} {incr j} {
                set v [read_reply $c]
                assert {$v > $last}
                set last $v
            }
            # (other clients' INCRs may run between its last INCR and GET)
            set got [read_reply $c]
            assert {$got >= $last}
        }
    }
    set c [lindex $cs 0]
    assert_equal 1000 [r $c GET ctr]
    kill_server $srv
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal 1000 [r $c GET ctr]
    kill_server $srv
}

# A slow disk (cairn's test hook): every AOF fsync takes ms longer.
proc slow_fsync_server {ms args} {
    set ::env(CAIRN_DEBUG_AOF_FSYNC_DELAY_MS) $ms
    try {
        return [aof_server {*}$args]
    } finally {
        unset ::env(CAIRN_DEBUG_AOF_FSYNC_DELAY_MS)
    }
}

test "appendfsync always: a reply waits for its fsync while the loop serves others" {
    if {!$is_cairn} { skip_test "uses cairn's slow-fsync test hook" }
    set srv [slow_fsync_server 400 appendfsync always]
    set a [client $srv]
    set b [client $srv]
    r $b SET other 1
    set t0 [clock milliseconds]
    send_cmd $a SET k v
    # the loop is not blocked by the fsync: PING comes back at once
    after 50
    assert_equal PONG [r $b PING]
    assert {[clock milliseconds] - $t0 < 300}
    # a read of the just-written key waits with it (linearizable)
    assert_equal v [r $b GET k]
    set tget [clock milliseconds]
    assert {$tget - $t0 >= 350}
    assert_equal OK [read_reply $a]
    # and by then it is in the file
    assert_match "*SET*k*v*" [read_bytes [last_incr $srv]]
    kill_server $srv
}

test "appendfsync always: a script's write, and a script's read of it, wait for the fsync" {
    if {!$is_cairn} { skip_test "uses cairn's slow-fsync test hook" }
    set srv [slow_fsync_server 400 appendfsync always]
    set a [client $srv]
    set b [client $srv]
    r $b SET other 1
    # EVAL is flagged neither read nor write; its reply must still wait.
    set t0 [clock milliseconds]
    assert_equal OK [r $a EVAL {return redis.call('SET', KEYS[1], ARGV[1])} 1 sk sv]
    assert {[clock milliseconds] - $t0 >= 350} "a script write was acknowledged before its fsync"
    assert_match "*SET*sk*sv*" [read_bytes [last_incr $srv]]
    set t0 [clock milliseconds]
    send_cmd $a EVAL {return redis.call('SET', KEYS[1], ARGV[1])} 1 sk2 sv2
    after 50
    assert_equal PONG [r $b PING]
    assert_equal sv2 [r $b EVAL_RO {return redis.call('GET', KEYS[1])} 1 sk2]
    assert {[clock milliseconds] - $t0 >= 350} "a script read of an unsynced write came back early"
    assert_equal OK [read_reply $a]
    kill_server $srv
}

test "appendfsync everysec: a slow fsync delays the write (at most ~2 s), never drops it" {
    if {!$is_cairn} { skip_test "uses cairn's slow-fsync test hook" }
    set srv [slow_fsync_server 3500 appendfsync everysec]
    set c [client $srv]
    r $c SET a 1
    # that write started an fsync that takes 3.5 s; the next write waits for it
    wait_for {[info_field $c aof_pending_bio_fsync] == 1}
    set t0 [clock milliseconds]
    assert_equal OK [r $c SET b 2]
    assert {[clock milliseconds] - $t0 < 500} "everysec replies do not wait"
    assert {[info_field $c aof_buffer_length] > 0}
    assert_equal 0 [info_field $c aof_delayed_fsync]
    wait_for {[info_field $c aof_buffer_length] == 0} 5000
    assert {[clock milliseconds] - $t0 >= 1900}
    assert_equal 1 [info_field $c aof_delayed_fsync]
    assert_match "*SET*b*2*" [read_bytes [last_incr $srv]]
    kill_server $srv
}

test "appendfsync always: a subscriber gets keyspace events while writes never pause" {
    if {![file executable /usr/bin/redis-benchmark]} { skip_test "no redis-benchmark" }
    if {$is_cairn} {
        set srv [slow_fsync_server 20 appendfsync always notify-keyspace-events KA]
    } else {
        set srv [aof_server appendfsync always notify-keyspace-events KA]
    }
    set sub [client $srv -timeout 3000]
    r $sub PSUBSCRIBE __keyspace@0__:*
    set c [client $srv]
    set bench [exec /usr/bin/redis-benchmark -p [dict get $srv port] -t set -c 50 -n 100000000 -r 1000 -q > /dev/null 2>@1 &]
    try {
        # wait until the writes flow
        wait_for {[info_field $c aof_current_size] - [info_field $c aof_base_size] > 100000}
        # messages keep arriving (each within 1.5 s) while the writers never stop
        set_timeout $sub 1500
        set until [expr {[clock milliseconds] + 2500}]
        set n 0
        while {[clock milliseconds] < $until} {
            set m [read_reply $sub]
            assert_equal pmessage [lindex $m 0]
            incr n
        }
        assert {$n > 100}
        assert_equal PONG [r $c PING]
    } finally {
        catch {exec kill $bench}
    }
    kill_server $srv
}

test "A failing disk under appendfsync always: writes refused with MISCONF, nothing acknowledged" {
    if {!$is_cairn} { skip_test "uses the file size limit (redis-server exits)" }
    # A wrapper that caps file sizes: writes past 64 KB fail with EFBIG.
    set wrap [file join $::cairn(tmp) limited-server.sh]
    write_bytes $wrap "#!/bin/sh\nulimit -f 128\nexec $::cairn(server) \"\$@\"\n"
    file attributes $wrap -permissions 0755
    set srv [start_server -binary $wrap -config {appendonly yes appendfsync always}]
    set c [client $srv -timeout 3000]
    set acked 0
    set failed ""
    for {set i 0} {$i < 200} {incr i} {
        if {[catch {r $c SET key:$i [string repeat v 1000]} e]} {
            set failed $e
            break
        }
        incr acked
    }
    # The write that hit the limit never got its reply ...
    assert_match "*timeout*" $failed
    assert {$acked > 50 && $acked < 200}
    set c2 [client $srv -timeout 3000]
    assert_equal err [info_field $c2 aof_last_write_status]
    # ... further writes (and PING, as in Redis) are refused ...
    assert_error "MISCONF Errors writing to the AOF file: File too large" {r $c2 SET x 1}
    assert_error "MISCONF Errors writing to the AOF file: *" {r $c2 PING}
    # ... and a read that would show the unwritten key waits too.
    assert_error "*timeout*" {r $c2 GET key:$acked}
    assert_match "*Error writing to the AOF file: File too large*" [log_tail $srv 20]
    kill_server $srv
    # Everything acknowledged is in the file.
    dict set srv binary $::cairn(server)
    set srv [restart_server $srv]
    set c [client $srv]
    for {set i 0} {$i < $acked} {incr i} {
        assert_equal 1000 [r $c STRLEN key:$i]
    }
    kill_server $srv
}

finish
