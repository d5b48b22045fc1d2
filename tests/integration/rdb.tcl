# rdb.tcl -- RDB snapshots: SAVE / BGSAVE / LASTSAVE, save points, loading
# at start-up, SHUTDOWN SAVE/NOSAVE, DEBUG RELOAD, INFO persistence, round
# trips of every type and encoding (DEBUG DIGEST, OBJECT ENCODING, expire
# times), BGSAVE while clients write, and clean start-up errors for
# truncated or corrupted files. Interoperability with redis-server is in
# rdb_interop.tcl; the dataset builder is shared through rdbdata.tcl.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]
source [file join [file dirname [info script]] .. helpers rdbgen.tcl]

set is_cairn [string match *cairn* [file tail $::cairn(server)]]

set srv [start_server]
set c [client $srv]

proc dump_path {srv} { return [file join [dict get $srv dir] dump.rdb] }

test "SAVE writes dump.rdb in dir, LASTSAVE and INFO follow" {
    r $c FLUSHALL
    r $c SAVE
    r $c SET a 1
    set before [r $c LASTSAVE]
    assert_equal 1 [info_field $c rdb_changes_since_last_save]
    after 1100
    assert_equal OK [r $c SAVE]
    assert [file exists [dump_path $srv]]
    assert {[r $c LASTSAVE] > $before}
    assert_equal 0 [info_field $c rdb_changes_since_last_save]
    assert_equal ok [info_field $c rdb_last_bgsave_status]
    assert_equal 0 [info_field $c rdb_bgsave_in_progress]
    assert_equal [r $c LASTSAVE] [info_field $c rdb_last_save_time]
    assert_error "*wrong number of arguments*" {r $c SAVE now}
}

test "BGSAVE writes the snapshot from a child; syntax and SCHEDULE" {
    r $c FLUSHALL
    r $c SET b 2
    assert_equal {Background saving started} [r $c BGSAVE]
    wait_for {[info_field $c rdb_bgsave_in_progress] == 0}
    assert_equal ok [info_field $c rdb_last_bgsave_status]
    assert_equal 0 [info_field $c rdb_changes_since_last_save]
    assert_error "*syntax error*" {r $c BGSAVE foo}
    assert_error "*syntax error*" {r $c BGSAVE SCHEDULE extra}
    # Nothing else runs, so SCHEDULE starts at once.
    assert_match {Background saving*} [r $c BGSAVE SCHEDULE]
    wait_for {[info_field $c rdb_bgsave_in_progress] == 0}
}

test "BGSAVE inside EXEC is scheduled; SAVE is refused inside MULTI" {
    set saves [info_field $c rdb_saves]
    r $c MULTI
    r $c BGSAVE
    assert_equal {{Background saving scheduled}} [r $c EXEC]
    wait_for {[info_field $c rdb_saves] == $saves + 1 && [info_field $c rdb_bgsave_in_progress] == 0}
    r $c MULTI
    assert_error "*not allowed inside a transaction*" {r $c SAVE}
    assert_error "EXECABORT*" {r $c EXEC}
}

test "Snapshot survives a restart (SIGTERM with save disabled does not save)" {
    r $c FLUSHALL
    rdbdata_populate $c
    set digest [r $c DEBUG DIGEST]
    set meta [rdbdata_meta $c]
    assert_equal OK [r $c SAVE]
    r $c SET changed-after-save 1
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal $meta [rdbdata_meta $c]
    assert_equal 0 [r $c EXISTS changed-after-save]
    assert_equal 0 [info_field $c loading]
    assert_equal [llength [dict keys $meta]] [expr {[info_field $c rdb_last_load_keys_loaded]}]
}

test "DEBUG RELOAD keeps every type, encoding and expire time" {
    r $c FLUSHALL
    rdbdata_populate $c
    set digest [r $c DEBUG DIGEST]
    set meta [rdbdata_meta $c]
    set saves [info_field $c rdb_saves]
    assert_equal OK [r $c DEBUG RELOAD]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal $meta [rdbdata_meta $c]
    assert_equal $saves [info_field $c rdb_saves]
    # NOSAVE reloads the file as it is; NOFLUSH loads over the live data
    r $c SET reload:extra 1
    assert_equal OK [r $c DEBUG RELOAD NOSAVE]
    assert_equal 0 [r $c EXISTS reload:extra]
    assert_equal $digest [r $c DEBUG DIGEST]
    if {$is_cairn} {
        # Every key is already there: a clean error (redis-server aborts).
        assert_error "*Error trying to load*" {r $c DEBUG RELOAD NOSAVE NOFLUSH}
    }
    assert_equal OK [r $c DEBUG RELOAD NOSAVE MERGE]
    assert_equal $digest [r $c DEBUG DIGEST]
}

test "Round trip with rdbcompression and rdbchecksum off" {
    r $c FLUSHALL
    rdbdata_populate $c
    set digest [r $c DEBUG DIGEST]
    r $c CONFIG SET rdbcompression no
    catch {r $c DEBUG RELOAD} e
    r $c CONFIG SET rdbcompression yes
    assert_equal OK $e
    assert_equal $digest [r $c DEBUG DIGEST]
}

test "Round trip with list compression (list-compress-depth 1)" {
    r $c FLUSHALL
    r $c CONFIG SET list-compress-depth 1
    catch {
        for {set i 0} {$i < 3000} {incr i} { r $c RPUSH clist "element-$i-[string repeat x 20]" }
        set digest [r $c DEBUG DIGEST]
        r $c DEBUG RELOAD
        assert_equal $digest [r $c DEBUG DIGEST]
        assert_equal quicklist [r $c OBJECT ENCODING clist]
        assert_equal element-1500-[string repeat x 20] [r $c LINDEX clist 1500]
    } e opts
    r $c CONFIG SET list-compress-depth 0
    if {[dict get $opts -code]} { error $e }
}

test "Values of several megabytes survive a reload (compressed and not)" {
    r $c FLUSHALL
    r $c SET big:text [string repeat "megabyte-" 600000]
    set noise ""
    set x 7
    for {set i 0} {$i < 300000} {incr i} {
        set x [expr {($x * 1103515245 + 12345) % 2147483648}]
        append noise [format %c [expr {($x >> 16) & 0xff}]]
    }
    r $c SET big:noise $noise
    r $c RPUSH big:list a [string repeat L 2000000] b
    r $c HSET big:hash f [string repeat H 1500000]
    r $c ZADD big:zset 1 [string repeat Z 1200000] 2 small
    r $c SADD big:set [string repeat S 1100000] small
    set digest [r $c DEBUG DIGEST]
    assert_equal OK [r $c DEBUG RELOAD]
    assert_equal $digest [r $c DEBUG DIGEST]
    assert_equal 5400000 [r $c STRLEN big:text]
    assert_equal $noise [r $c GET big:noise]
    r $c FLUSHALL
}

test "Expired keys in the file are not loaded" {
    r $c FLUSHALL
    r $c SET keep v
    r $c SET gone v PX 300
    r $c HSET gone-hash f v
    r $c PEXPIRE gone-hash 300
    r $c SAVE
    after 500
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal 1 [r $c DBSIZE]
    assert_equal v [r $c GET keep]
    assert_equal 2 [info_field $c rdb_last_load_keys_expired]
    assert_equal 1 [info_field $c rdb_last_load_keys_loaded]
}

test "Keys in several databases come back in their databases" {
    r $c FLUSHALL
    foreach db {0 3 15} {
        r $c SELECT $db
        r $c SET "k$db" "v$db"
        r $c RPUSH "l$db" a b c
    }
    r $c SELECT 0
    r $c SAVE
    set srv [restart_server $srv]
    set c [client $srv]
    foreach db {0 3 15} {
        r $c SELECT $db
        assert_equal 2 [r $c DBSIZE]
        assert_equal "v$db" [r $c GET "k$db"]
    }
    r $c SELECT 0
}

test "SHUTDOWN SAVE saves, SHUTDOWN NOSAVE does not" {
    r $c FLUSHALL
    r $c SAVE
    r $c SET s1 yes
    catch {r $c SHUTDOWN SAVE}
    wait_for {![server_alive $srv]}
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal yes [r $c GET s1]
    r $c CONFIG SET save "3600 1"
    r $c SET s2 yes
    catch {r $c SHUTDOWN NOSAVE}
    wait_for {![server_alive $srv]}
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal 0 [r $c EXISTS s2]
    assert_error "*syntax error*" {r $c SHUTDOWN SAVE NOSAVE}
}

test "SHUTDOWN refuses to exit when the final save fails, unless FORCE" {
    set s8 [start_server -config {save "3600 1" enable-protected-configs yes}]
    set c8 [client $s8]
    r $c8 SET x 1
    set gone [file join [dict get $s8 dir] gone]
    file mkdir $gone
    r $c8 CONFIG SET dir $gone
    file delete $gone
    assert_error "ERR Errors trying to SHUTDOWN*" {r $c8 SHUTDOWN}
    assert_equal PONG [r $c8 PING]
    catch {r $c8 SHUTDOWN FORCE}
    wait_for {![server_alive $s8]}
}

test "SIGTERM saves when save points are set" {
    set s2 [start_server -config {save "3600 1"}]
    set c2 [client $s2]
    r $c2 SET on-sigterm 1
    stop_server $s2
    set s2 [restart_server $s2]
    set c2 [client $s2]
    assert_equal 1 [r $c2 GET on-sigterm]
    kill_server $s2
}

test "Save points trigger a background save" {
    set s3 [start_server -config {save "1 1"}]
    set c3 [client $s3]
    r $c3 SET trigger 1
    wait_for {[file exists [dump_path $s3]] && [info_field $c3 rdb_changes_since_last_save] == 0} 15000
    assert_equal ok [info_field $c3 rdb_last_bgsave_status]
    assert {[info_field $c3 rdb_saves] >= 1}
    kill_server $s3
}

test "BGSAVE while clients write: the file holds the fork-time data" {
    r $c FLUSHALL
    for {set i 0} {$i < 300} {incr i} { r $c SET "bg:$i" old }
    r $c CONFIG SET rdb-key-save-delay 3000
    catch {
        assert_equal {Background saving started} [r $c BGSAVE]
        assert_equal 1 [info_field $c rdb_bgsave_in_progress]
        assert_error "*Background save already in progress*" {r $c BGSAVE}
        assert_error "*Background save already in progress*" {r $c SAVE}
        for {set i 0} {$i < 300} {incr i} { r $c SET "bg:$i" new }
        r $c SET bg:extra 1
        assert_equal new [r $c GET bg:7]
    } e opts
    r $c CONFIG SET rdb-key-save-delay 0
    if {[dict get $opts -code]} { error $e }
    wait_for {[info_field $c rdb_bgsave_in_progress] == 0} 20000
    assert_equal ok [info_field $c rdb_last_bgsave_status]
    # The 301 writes after the fork are still unsaved.
    assert_equal 301 [info_field $c rdb_changes_since_last_save]
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal 300 [r $c DBSIZE]
    assert_equal old [r $c GET bg:7]
}

test "SHUTDOWN kills a running BGSAVE and still saves" {
    set s4 [start_server -config {save "3600 1"}]
    set c4 [client $s4]
    for {set i 0} {$i < 200} {incr i} { r $c4 SET "x:$i" $i }
    r $c4 CONFIG SET rdb-key-save-delay 100000
    r $c4 BGSAVE
    r $c4 CONFIG SET rdb-key-save-delay 0
    catch {r $c4 SHUTDOWN}
    wait_for {![server_alive $s4]}
    set s4 [restart_server $s4]
    set c4 [client $s4]
    assert_equal 200 [r $c4 DBSIZE]
    assert_equal {} [glob -nocomplain -directory [dict get $s4 dir] temp-*.rdb]
    kill_server $s4
}

test "A failed BGSAVE with save points set refuses writes with MISCONF" {
    set s6 [start_server -config {save "3600 1" enable-protected-configs yes}]
    set c6 [client $s6]
    set gone [file join [dict get $s6 dir] gone]
    file mkdir $gone
    r $c6 CONFIG SET dir $gone
    file delete $gone
    # A failed SAVE is only an error reply; a failed BGSAVE stops writes.
    r $c6 SET before-failure 1
    assert_error "ERR*" {r $c6 SAVE}
    assert_equal ok [info_field $c6 rdb_last_bgsave_status]
    assert_equal OK [r $c6 SET k0 v]
    r $c6 BGSAVE
    wait_for {[info_field $c6 rdb_bgsave_in_progress] == 0}
    assert_equal err [info_field $c6 rdb_last_bgsave_status]
    assert_error "MISCONF *stop-writes-on-bgsave-error*" {r $c6 SET k v}
    assert_error "MISCONF *" {r $c6 PING}
    assert_equal {} [r $c6 GET k]
    r $c6 MULTI
    assert_error "MISCONF *" {r $c6 SET k v}
    assert_error "EXECABORT *" {r $c6 EXEC}
    r $c6 CONFIG SET stop-writes-on-bgsave-error no
    assert_equal OK [r $c6 SET k v]
    r $c6 CONFIG SET stop-writes-on-bgsave-error yes
    assert_error "MISCONF *" {r $c6 SET k v}
    r $c6 CONFIG SET dir [dict get $s6 dir]
    r $c6 BGSAVE
    wait_for {[info_field $c6 rdb_bgsave_in_progress] == 0}
    assert_equal ok [info_field $c6 rdb_last_bgsave_status]
    assert_equal OK [r $c6 SET k2 v]
    kill_server $s6
}

test "FLUSHALL with save points saves the empty dataset" {
    set s7 [start_server -config {save "3600 1"}]
    set c7 [client $s7]
    r $c7 SET a 1
    r $c7 SAVE
    r $c7 SET b 2
    assert_equal OK [r $c7 FLUSHALL]
    assert_equal 0 [info_field $c7 rdb_changes_since_last_save]
    kill_server $s7
    set s7 [restart_server $s7]
    set c7 [client $s7]
    assert_equal 0 [r $c7 DBSIZE]
    kill_server $s7
}

# ---- broken files: the server must refuse to start, cleanly ----

# Start BINARY on a dir holding `bytes` as dump.rdb; returns {exitcode log}.
proc start_on_file {bytes {extra {}}} {
    set dir [file join $::cairn(tmp) "broken-[incr ::broken_seq]"]
    file mkdir $dir
    set f [open [file join $dir dump.rdb] wb]
    puts -nonewline $f $bytes
    close $f
    set port [::cairn_h::find_port]
    set code 0
    if {[catch {exec timeout 20 $::cairn(server) --port $port --dir $dir --save "" \
            --logfile [file join $dir log] {*}$extra} out opts]} {
        set ec [dict get $opts -errorcode]
        set code [expr {[lindex $ec 0] eq "CHILDSTATUS" ? [lindex $ec 2] : "?$ec"}]
    }
    # A sanitizer report also exits with status 1: it must not be one.
    if {[string match *Sanitizer* $out] || [string match "*runtime error*" $out]} {
        set code "sanitizer: [string range $out 0 300]"
    }
    set f [open [file join $dir log]]
    set log [read $f]
    close $f
    return [list $code $log]
}
set ::broken_seq 0

r $c FLUSHALL
rdbdata_populate $c
r $c SAVE
set f [open [dump_path $srv] rb]
set good [read $f]
close $f

test "A truncated file gives a clean start-up error with the offset" {
    foreach cut [list 5 9 40 [expr {[string length $good] / 2}] [expr {[string length $good] - 3}]] {
        lassign [start_on_file [string range $good 0 [expr {$cut - 1}]]] code log
        assert_equal 1 $code "exit status for a file cut at $cut"
        if {$is_cairn} { assert_match "*Short read*at offset*" $log }
    }
}

test "Flipped bytes give a checksum or format error, never a crash" {
    foreach pos [list 20 100 300 600 [expr {[string length $good] - 12}]] {
        set bad [string replace $good $pos $pos [format %c [expr {[scan [string index $good $pos] %c] ^ 0x5a}]]]
        lassign [start_on_file $bad] code log
        assert_equal 1 $code "exit status for a flip at $pos"
        if {$is_cairn} { assert_match "*at offset*" $log }
    }
}

test "Corrupt values are refused cleanly even without the checksum" -tags cairn-only {
    if {!$is_cairn} { skip_test "redis-server aborts on some corruptions" }
    set s5 [start_server -config {rdbchecksum no}]
    set c5 [client $s5]
    set path [dump_path $s5]
    set rng 12345
    set refused 0
    for {set j 0} {$j < 200} {incr j} {
        set rng [expr {($rng * 1103515245 + 12345) % 2147483648}]
        set pos [expr {20 + $rng % ([string length $good] - 30)}]
        set bad [string replace $good $pos $pos [format %c [expr {($rng >> 8) & 0xff}]]]
        set f [open $path wb]
        puts -nonewline $f $bad
        close $f
        if {[catch {r $c5 DEBUG RELOAD NOSAVE} e]} {
            assert_match "*Error trying to load the RDB dump*" $e
            incr refused
        }
        assert_equal PONG [r $c5 PING] "after a flip at $pos"
    }
    assert {$refused > 0}
    assert_match "*at offset*" [exec grep "Failed loading" [dict get $s5 log]]
    kill_server $s5
}

test "Unsupported versions and types are refused by name" -tags cairn-only {
    if {!$is_cairn} { skip_test "messages are cairn's" }
    lassign [start_on_file [rdb_file 12 ""]] code log
    assert_equal 1 $code
    assert_match "*RDB version 12 (Redis 7.4+) is not supported*" $log
    lassign [start_on_file [rdb_file 10 [rdb_key 15 s [rdb_len 0]]]] code log
    assert_equal 1 $code
    assert_match "*stream*" $log
    lassign [start_on_file [rdb_file 10 [rdb_key 7 m [rdb_len 0]]]] code log
    assert_equal 1 $code
    assert_match "*module*" $log
    lassign [start_on_file "NOTREDIS0010"] code log
    assert_equal 1 $code
    assert_match "*Wrong signature*" $log
}

finish
