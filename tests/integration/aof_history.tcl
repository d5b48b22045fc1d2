# aof_history.tcl -- the AOF manifest's history entries (type h) and the
# #TS: timestamp annotations, with real servers and the files on disk:
#   * a rewrite lists the files it superseded as history, newest first, as
#     Redis 7.0 does; they are deleted at once unless aof-disable-auto-gc
#     is yes, and CONFIG SET aof-disable-auto-gc no deletes the kept ones;
#     loading ignores history entries (restart, DEBUG LOADAOF);
#   * interop: redis-server's directory with history entries and
#     timestamps loads here, and ours loads in redis-server (same digest);
#   * aof-timestamp-enabled: a rewritten command base and every new
#     incremental file start with a #TS: line;
#   * point-in-time truncation: cairn-check-aof --truncate-to-timestamp cuts
#     the last file at its first later annotation (redis-check-aof cuts it
#     at the same byte), refuses to cut a file that later files depend on.
# The history and interop tests pass against redis-server 7.0 too.
source [file join [file dirname [info script]] .. helpers harness.tcl]

set ref $::cairn(reference)
if {$ref eq "" && [file executable /usr/bin/redis-server]} { set ref /usr/bin/redis-server }
set is_cairn [string match *cairn* [file tail $::cairn(server)]]
set tool [file join [file dirname [info script]] .. .. utils cairn-check-aof]
set redis_check /usr/bin/redis-check-aof

proc aofdir {srv} { return [file join [dict get $srv dir] appendonlydir] }
proc manifest {srv} { return [read_bytes [file join [aofdir $srv] appendonly.aof.manifest]] }
proc aof_file {srv name} { return [file join [aofdir $srv] $name] }
# Stop srv and start its directory with binary bin, which must load the
# dataset whose DEBUG DIGEST is digest: returns the new handle and a client.
proc reopen_as {srv bin digest} {
    stop_server $srv
    dict set srv binary $bin
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST] "loaded by [file tail $bin]"
    return [list $srv $c]
}
proc rewrite {c} {
    set n [info_field $c aof_rewrites]
    assert_match "Background append only file rewriting *" [r $c BGREWRITEAOF]
    wait_for {[info_field $c aof_rewrites] > $n && [info_field $c aof_rewrite_in_progress] == 0}
}
# The manifest as lines "name type" (seq is part of the name).
proc entries {srv} {
    set out {}
    foreach line [split [string trim [manifest $srv]] \n] { lappend out "[lindex $line 1] [lindex $line 5]" }
    return $out
}

test "A rewrite marks the old files as history; aof-disable-auto-gc yes keeps them, no deletes them" {
    set srv [start_server -config {appendonly yes aof-disable-auto-gc yes}]
    set c [client $srv]
    r $c SET a 1
    rewrite $c
    r $c SET b 2
    # The newest history first: the incremental file, then the base it
    # extended (Redis' order).
    assert_equal [list {appendonly.aof.2.base.rdb b} {appendonly.aof.1.incr.aof h} \
                      {appendonly.aof.1.base.rdb h} {appendonly.aof.2.incr.aof i}] [entries $srv]
    rewrite $c
    r $c SET c 3
    assert_equal "file appendonly.aof.3.base.rdb seq 3 type b\nfile appendonly.aof.2.incr.aof seq 2 type h\nfile\
appendonly.aof.2.base.rdb seq 2 type h\nfile appendonly.aof.1.incr.aof seq 1 type h\nfile appendonly.aof.1.base.rdb\
seq 1 type h\nfile appendonly.aof.3.incr.aof seq 3 type i\n" [manifest $srv]
    foreach f {1.base.rdb 2.base.rdb 1.incr.aof 2.incr.aof} {
        assert {[file exists [aof_file $srv appendonly.aof.$f]]} "history file $f kept"
    }
    # Loading ignores history: a history file's contents must not come
    # back. Put a key into one; neither DEBUG LOADAOF nor a restart shows it.
    set h [open [aof_file $srv appendonly.aof.2.incr.aof] ab]
    puts -nonewline $h "*3\r\n\$3\r\nSET\r\n\$5\r\nghost\r\n\$1\r\n1\r\n"
    close $h
    set digest [r $c DEBUG DIGEST]
    assert_equal OK [r $c DEBUG LOADAOF]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal 0 [r $c EXISTS ghost]
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal {1 2 3 {}} [r $c MGET a b c ghost]
    # still kept after the restart
    assert_equal 6 [llength [entries $srv]]
    # Turning the collection on deletes them now, and the manifest says so.
    assert_equal OK [r $c CONFIG SET aof-disable-auto-gc no]
    wait_for {[llength [entries $srv]] == 2}
    assert_equal {{appendonly.aof.3.base.rdb b} {appendonly.aof.3.incr.aof i}} [entries $srv]
    foreach f {1.base.rdb 2.base.rdb 1.incr.aof 2.incr.aof} {
        wait_for {![file exists [aof_file $srv appendonly.aof.$f]]}
    }
    # and later rewrites delete what they supersede at once
    rewrite $c
    wait_for {![file exists [aof_file $srv appendonly.aof.3.base.rdb]]}
    assert_equal {{appendonly.aof.4.base.rdb b} {appendonly.aof.4.incr.aof i}} [entries $srv]
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    kill_server $srv
}

test "A manifest with history entries: redis-server's loads here, ours loads in redis-server" {
    if {$ref eq ""} { skip_test "no reference redis-server" }
    set conf {appendonly yes aof-disable-auto-gc yes aof-timestamp-enabled yes aof-use-rdb-preamble no}
    # redis-server writes the directory: a rewrite with history kept.
    set rs [start_server -binary $ref -config $conf]
    set rc [client $rs]
    r $rc SET a 1
    r $rc RPUSH l x y
    rewrite $rc
    r $rc SET b 2
    r $rc HSET h f v
    set digest [r $rc DEBUG DIGEST]
    set m [manifest $rs]
    assert_match "*type h*" $m
    assert_match "#TS:*" [read_bytes [aof_file $rs appendonly.aof.2.base.aof]]
    # ... loads here, history untouched (collection is off here too)
    lassign [reopen_as $rs $::cairn(server) $digest] srv c
    assert_equal $m [manifest $srv]
    # Ours: another rewrite adds history; redis-server loads that.
    r $c SET c 3
    rewrite $c
    r $c INCR n
    set digest [r $c DEBUG DIGEST]
    assert_equal 6 [llength [entries $srv]]
    assert_equal {h h h h} [lmap e [lrange [entries $srv] 1 4] {lindex $e 1}]
    lassign [reopen_as $srv $ref $digest] rs rc
    assert_equal {1 2 3 1} [r $rc MGET a b c n]
    kill_server $rs
}

test "aof-timestamp-enabled: a command base and each new incremental file start with a #TS: line" {
    set srv [start_server -config {appendonly yes aof-timestamp-enabled yes aof-use-rdb-preamble no}]
    set c [client $srv]
    r $c SET a 1
    assert_match "#TS:*" [read_bytes [aof_file $srv appendonly.aof.1.base.aof]]
    # (Redis skips it when the first write comes in the second of the base)
    if {$is_cairn} { assert_match "#TS:*" [read_bytes [aof_file $srv appendonly.aof.1.incr.aof]] }
    set before [clock seconds]
    rewrite $c
    assert_match "#TS:*" [read_bytes [aof_file $srv appendonly.aof.2.base.aof]]
    if {$is_cairn} {
        # the new file has its line before any write, whatever the second
        # of the last annotation (Redis only writes one on a new second)
        set bytes [read_bytes [aof_file $srv appendonly.aof.2.incr.aof]]
        assert {[regexp {^#TS:([0-9]+)\r\n$} $bytes -> ts]} "a new file starts with #TS: ($bytes)"
        assert_range $ts $before [clock seconds]
        r $c SET b 2
        assert_match "#TS:*\r\n*SET*" [read_bytes [aof_file $srv appendonly.aof.2.incr.aof]]
    }
    # both load here and in redis-server
    r $c SET c 3
    set digest [r $c DEBUG DIGEST]
    lassign [reopen_as $srv $::cairn(server) $digest] srv c
    if {$ref ne ""} { lassign [reopen_as $srv $ref $digest] srv c }
    kill_server $srv
}

# A directory made by hand: a command base and two incremental files, each
# write under its own annotation (second T*100).
proc cmd {args} {
    set s "*[llength $args]\r\n"
    foreach a $args { append s "\$[string length $a]\r\n$a\r\n" }
    return $s
}
proc pit_dir {dir} {
    file delete -force $dir
    file mkdir $dir
    write_bytes [file join $dir appendonly.aof.1.base.aof] "#TS:100\r\n[cmd SELECT 0][cmd SET a 1]"
    write_bytes [file join $dir appendonly.aof.1.incr.aof] "#TS:200\r\n[cmd SELECT 0][cmd SET b 2]#TS:300\r\n[cmd SET c 3]"
    write_bytes [file join $dir appendonly.aof.2.incr.aof] "#TS:400\r\n[cmd SELECT 0][cmd SET d 4]#TS:500\r\n[cmd SET e 5]"
    # (with a history line naming a file long gone: checkers skip it)
    write_bytes [file join $dir appendonly.aof.manifest] "file appendonly.aof.1.base.aof seq 1 type b\nfile\
appendonly.aof.3.incr.aof seq 3 type h\nfile appendonly.aof.1.incr.aof seq 1 type i\nfile appendonly.aof.2.incr.aof\
seq 2 type i\n"
    return [file join $dir appendonly.aof.manifest]
}
proc files_of {dir} {
    set out {}
    foreach f [lsort [glob -directory $dir *.aof]] { lappend out [file tail $f] [read_bytes $f] }
    return $out
}
# Start a server on dir's parent and return MGET a..e.
proc pit_load {dir} {
    set parent [file dirname $dir]
    set srv [start_server -config [list dir $parent appenddirname [file tail $dir] appendonly yes]]
    set c [client $srv]
    set got [r $c MGET a b c d e]
    kill_server $srv
    return $got
}

test "cairn-check-aof --truncate-to-timestamp: cuts the last file, refuses to cut an earlier one" {
    if {!$is_cairn} { skip_test "cairn-check-aof is a mode of cairn-server" }
    set env(CAIRN_SERVER) $::cairn(server)
    set dir [file join $::cairn(tmp) pit appendonlydir]
    # Within the last file: cut at its "#TS:500" line, the same byte
    # redis-check-aof cuts at.
    set m [pit_dir $dir]
    assert_match "*Successfully truncated AOF appendonly.aof.2.incr.aof to timestamp 450*" \
        [exec $tool --truncate-to-timestamp 450 $m]
    set ours [files_of $dir]
    assert_equal "#TS:400\r\n[cmd SELECT 0][cmd SET d 4]" [read_bytes [file join $dir appendonly.aof.2.incr.aof]]
    if {[file executable $redis_check]} {
        set m [pit_dir $dir]
        exec $redis_check --truncate-to-timestamp 450 $m
        assert_equal $ours [files_of $dir]
    }
    assert_equal {1 2 3 4 {}} [pit_load $dir]
    # Nothing later than T: nothing cut.
    set m [pit_dir $dir]
    set untouched [files_of $dir]
    exec $tool --truncate-to-timestamp 600 $m
    assert_equal $untouched [files_of $dir]
    # T before the last file was opened: its #TS: first line says all of it
    # is later, so it becomes empty (redis-check-aof gives up on it).
    set m [pit_dir $dir]
    exec $tool --truncate-to-timestamp 350 $m
    assert_equal 0 [file size [file join $dir appendonly.aof.2.incr.aof]]
    assert_equal {1 2 3 {} {}} [pit_load $dir]
    # T inside an earlier file: later files depend on it, so nothing is
    # cut; T before the base: nothing at all to keep.
    foreach {t why} {250 "Failed to truncate AOF*to timestamp 250*not the last file"
                     50 "AOF appendonly.aof.1.base.aof has nothing before timestamp 50"} {
        set m [pit_dir $dir]
        assert {[catch {exec $tool --truncate-to-timestamp $t $m} out]} "T=$t refused"
        assert_match "*$why*" $out
        assert_equal $untouched [files_of $dir]
    }
    # A single file whose first line is later than T: nothing to keep.
    set single [file join $::cairn(tmp) single.aof]
    write_bytes $single "#TS:900\r\n[cmd SET z 1]"
    assert {[catch {exec $tool --truncate-to-timestamp 800 $single} out]}
    assert_match "*has nothing before timestamp 800*" $out
    assert_equal "#TS:900\r\n[cmd SET z 1]" [read_bytes $single]
    # bad arguments
    assert {[catch {exec $tool --truncate-to-timestamp soon $m} out]}
    assert_match "*Invalid timestamp*" $out
    unset env(CAIRN_SERVER)
}

test "Point-in-time recovery of a live server's AOF: the writes after T are gone after a restart" {
    if {!$is_cairn} { skip_test "cairn-check-aof is a mode of cairn-server" }
    set env(CAIRN_SERVER) $::cairn(server)
    set srv [start_server -config {appendonly yes appendfsync always aof-timestamp-enabled yes}]
    set c [client $srv]
    r $c SET early 1
    rewrite $c
    r $c SET mid 1
    # the next write lands in a later second than everything so far
    set t [clock seconds]
    wait_for {[clock seconds] > $t}
    r $c SET late 1
    stop_server $srv
    set m [file join [aofdir $srv] appendonly.aof.manifest]
    assert_match "*Successfully truncated*to timestamp $t*" [exec $tool --truncate-to-timestamp $t $m]
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal {1 1 {}} [r $c MGET early mid late]
    kill_server $srv
    unset env(CAIRN_SERVER)
}

finish
