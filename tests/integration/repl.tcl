# repl.tcl -- replication between two (or three) servers of the binary
# under test: full sync from a disk snapshot and diskless, every type and
# expire time arriving, writes made while the snapshot is taken, the
# stream afterwards, chained replicas, WAIT, read-only and stale-data
# refusals, min-replicas-to-write, expiry driven by the primary (and a
# writable replica expiring its own keys), partial
# resyncs (a cut link, a restarted replica, a promoted replica through
# the second replication ID), a stopped replica (dropped past its output
# buffer limit; below it, its lag kept on disk, not in the primary's
# memory) and a primary sending garbage.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

proc fresh_pair {args} {
    set m [start_server -config [list repl-diskless-sync-delay 0 {*}$args]]
    set r [start_server -config [list repl-diskless-sync-delay 0 {*}$args]]
    return [list $m $r]
}

# A fake primary: a listening socket answering the handshake, then `script`.
proc fake_primary {script} {
    set ::fake_script $script
    set ::fake_conns 0
    set srv [socket -server fake_accept -myaddr 127.0.0.1 0]
    return [list $srv [lindex [fconfigure $srv -sockname] 2]]
}
# Point the server of client sc at a fake primary playing script; return
# once it connected twice (it reconnected after the first attempt) or 8 s.
proc fake_primary_run {sc script} {
    lassign [fake_primary $script] lsock port
    r $sc REPLICAOF 127.0.0.1 $port
    # the fake answers from this process' event loop
    set deadline [expr {[clock milliseconds] + 8000}]
    while {$::fake_conns < 2 && [clock milliseconds] < $deadline} {
        after 50 {set ::tick 1}
        vwait ::tick
    }
    close $lsock
}

proc fake_accept {s addr port} {
    incr ::fake_conns
    fconfigure $s -translation binary -blocking 1 -buffering none
    while {[gets $s line] >= 0} {
        set line [string trimright $line \r]
        if {[string match {\**} $line]} {
            set n [string range $line 1 end]
            set args {}
            for {set j 0} {$j < $n} {incr j} {
                gets $s len
                lappend args [string trimright [read $s [expr {[string range $len 1 end] + 2}]] \r\n]
            }
        } else {
            set args [split $line]
        }
        switch -nocase -- [lindex $args 0] {
            PING { puts -nonewline $s "+PONG\r\n" }
            REPLCONF { puts -nonewline $s "+OK\r\n" }
            PSYNC {
                puts -nonewline $s $::fake_script
                after 200
                close $s
                return
            }
        }
    }
    close $s
}

foreach mode {disk diskless} {
    test "Full sync ($mode): every type, encoding and expire time arrives" {
        lassign [fresh_pair repl-diskless-sync [expr {$mode eq "diskless" ? "yes" : "no"}]] m s
        set mc [client $m]
        set rc [client $s]
        rdbdata_populate $mc
        r $rc SET stale-key gone
        repl_attach $rc $m
        repl_wait_caught_up $mc $rc
        repl_same_data $mc $rc
        assert_equal 0 [r $rc EXISTS stale-key]
        assert_equal 1 [repl_stat $mc sync_full]
        # then the stream: every write after the snapshot
        r $mc INCR counter
        r $mc HSET hash:small f9 v9
        r $mc SELECT 5
        r $mc LPUSH db5:list a b c
        r $mc SELECT 0
        r $mc DEL str:int
        r $mc PEXPIRE str:raw 500000
        repl_wait_caught_up $mc $rc
        repl_same_data $mc $rc
        kill_server $m
        kill_server $s
    }
}

foreach load {swapdb on-empty-db} {
    test "repl-diskless-load $load: the snapshot is parsed from the socket" {
        lassign [fresh_pair repl-diskless-sync yes repl-diskless-load $load] m s
        set mc [client $m]
        set rc [client $s]
        rdbdata_populate $mc
        r $mc FUNCTION LOAD "#!lua name=plib\nredis.register_function('pf', function() return 1 end)"
        if {$load eq "swapdb"} { r $rc SET old-data 1 }
        r $rc FUNCTION LOAD "#!lua name=rlib\nredis.register_function('rf', function() return 1 end)"
        repl_attach $rc $m
        repl_wait_caught_up $mc $rc
        repl_same_data $mc $rc
        assert_equal 0 [r $rc EXISTS old-data]
        assert_equal {plib} [lmap l [r $rc FUNCTION LIST] {lindex $l 1}] "the primary's libraries replace the replica's"
        assert_match "*from the socket*" [read_bytes [dict get $s log]]
        assert {![file exists [file join [dict get $s dir] dump.rdb]]} "no file was written"
        kill_server $m
        kill_server $s
    }
}

test "repl-diskless-load swapdb: a failed load gives the old dataset back" {
    set s [start_server -config {repl-diskless-load swapdb repl-timeout 2}]
    set sc [client $s]
    r $sc SET kept 1
    r $sc RPUSH kept:list a b
    r $sc FUNCTION LOAD "#!lua name=keptlib\nredis.register_function('kf', function() return 'kept' end)"
    set digest [r $sc DEBUG DIGEST]
    fake_primary_run $sc "+FULLRESYNC [string repeat e 40] 100\r\n\$EOF:[string repeat y 40]\r\nREDIS0010\xfa\x09redis-ver"
    r $sc REPLICAOF NO ONE
    assert_equal $digest [r $sc DEBUG DIGEST]
    assert_equal kept [r $sc FCALL kf 0] "the libraries are given back too"
    if {[string match *cairn* [file tail $::cairn(server)]]} {
        assert_match "*Restoring the dataset kept aside*" [read_bytes [dict get $s log]]
    }
    kill_server $s
}

test "A replica too far behind (client-output-buffer-limit replica) is dropped, then catches up" {
    lassign [fresh_pair] m s
    set mc [client $m]
    set rc [client $s]
    repl_attach $rc $m
    repl_wait_online $mc 1
    r $mc CONFIG SET client-output-buffer-limit "replica 2mb 0 0"
    ::cairn_h::signal [dict get $s pid] STOP
    set big [string repeat x 100000]
    for {set i 0} {$i < 300} {incr i} { r $mc SET big:$i $big }
    wait_for {[info_field $mc connected_slaves replication] == 0} 20000 "replica dropped"
    ::cairn_h::signal [dict get $s pid] CONT
    r $mc CONFIG SET client-output-buffer-limit "replica 256mb 64mb 60"
    repl_wait_online $mc 1
    repl_wait_caught_up $mc $rc
    assert_equal [r $mc DEBUG DIGEST] [r $rc DEBUG DIGEST]
    kill_server $m
    kill_server $s
}

test "A stopped replica costs the primary about the backlog: the stream it lags is kept on disk, and it catches up" {
    if {![string match *cairn* [file tail $::cairn(server)]]} { skip_test "cairn's lag spill" }
    lassign [fresh_pair] m s
    set mc [client $m]
    set rc [client $s]
    repl_attach $rc $m
    repl_wait_online $mc 1
    ::cairn_h::signal [dict get $s pid] STOP
    set big [string repeat x 100000]
    set peak 0
    for {set i 0} {$i < 300} {incr i} {
        r $mc SET big:$i $big
        if {$i % 10 == 0} { after 20 }
        set peak [expr {max($peak, [info_field $mc used_memory_repl_stream memory])}]
    }
    # 30 MB written, of which the stopped replica's socket took a few: the
    # rest would be held for it (Redis holds it in its replication buffer).
    assert {$peak < 4000000} "used_memory_repl_stream peaked at $peak"
    assert_equal 1 [info_field $mc connected_slaves replication] "the replica is still attached"
    ::cairn_h::signal [dict get $s pid] CONT
    repl_wait_caught_up $mc $rc
    assert_equal [r $mc DEBUG DIGEST] [r $rc DEBUG DIGEST]
    assert_equal 0 [repl_stat $mc sync_partial_ok] "no resync: the same link caught up"
    assert_equal 1 [repl_stat $mc sync_full]
    # logged when the spill is freed, once the replica read all of it
    wait_for {[string match "*Lagging replicas: * stream bytes were kept on disk for replicas*" [read_bytes [dict get $m log]]]} 5000 "the spill's log line"
    kill_server $m
    kill_server $s
}

test "Without a diskless delay, a replica asking before the payload left the pipe shares that snapshot" {
    if {![string match *cairn* [file tail $::cairn(server)]]} { skip_test "cairn joins a diskless snapshot late" }
    # 1 ms a key: the whole payload (well under the child's 64 KB write
    # buffer) reaches the pipe only after ~1.5 s, when the child is done.
    set m [start_server -config {repl-diskless-sync-delay 0 rdb-key-save-delay 1000}]
    set s1 [start_server]
    set s2 [start_server]
    set mc [client $m]
    r $mc DEBUG POPULATE 1500 k 8
    set c1 [client $s1]
    set c2 [client $s2]
    r $c1 REPLICAOF 127.0.0.1 [dict get $m port]
    wait_for {[info_field $mc sync_full stats] == 1} 5000 "the first replica asked"
    after 300
    r $c2 REPLICAOF 127.0.0.1 [dict get $m port]
    repl_wait_link $c1
    repl_wait_link $c2
    repl_wait_caught_up $mc $c1
    repl_wait_caught_up $mc $c2
    set log [read_bytes [dict get $m log]]
    assert_equal 1 [regexp -all {Starting BGSAVE for SYNC} $log] "snapshots taken"
    assert_equal 2 [regexp -all {Streamed RDB transfer with replica \S+ succeeded} $log]
    assert_equal [r $mc DEBUG DIGEST] [r $c1 DEBUG DIGEST]
    assert_equal [r $mc DEBUG DIGEST] [r $c2 DEBUG DIGEST]
    kill_server $m
    kill_server $s1
    kill_server $s2
}

test "A replica with appendonly yes rewrites its AOF after a full sync and restarts with the primary's data" {
    set m [start_server -config {repl-diskless-sync-delay 0}]
    set s [start_server -config {appendonly yes}]
    set mc [client $m]
    set rc [client $s]
    r $rc SET junk-before-sync 1
    rdbdata_populate $mc
    wait_for {[info_field $rc aof_rewrite_in_progress persistence] == 0}
    set rewrites [info_field $rc aof_rewrites persistence]
    repl_attach $rc $m
    r $mc INCR after-sync
    r $mc RPUSH after-sync:list a b
    repl_wait_caught_up $mc $rc
    wait_for {[info_field $rc aof_rewrite_in_progress persistence] == 0 &&
              [info_field $rc aof_rewrites persistence] > $rewrites} 20000 "the AOF was rewritten"
    set digest [r $mc DEBUG DIGEST]
    kill_server $m
    set s [restart_server $s]
    set rc [client $s]
    assert_equal $digest [r $rc DEBUG DIGEST]
    assert_equal 0 [r $rc EXISTS junk-before-sync]
    kill_server $s
}

foreach {mode conf} {
    diskless {repl-diskless-sync yes repl-diskless-sync-delay 2}
    disk {repl-diskless-sync no rdb-key-save-delay 300}
} {
    test "One snapshot serves two replicas ($mode)" {
        set m [start_server -config $conf]
        set mc [client $m]
        r $mc DEBUG POPULATE 2000 key 10
        set reps {}
        foreach j {1 2} {
            set s [start_server]
            set sc [client $s]
            lappend reps $s $sc
            r $sc REPLICAOF 127.0.0.1 [dict get $m port]
        }
        foreach {s sc} $reps { repl_wait_link $sc 30000 }
        repl_wait_online $mc 2
        assert_equal 2 [repl_stat $mc sync_full]
        set log [read_bytes [dict get $m log]]
        if {[string match *cairn* [file tail $::cairn(server)]]} {
            assert_equal 1 [regexp -all {Starting BGSAVE for SYNC} $log] "snapshots taken"
        }
        foreach {s sc} $reps {
            assert_equal [r $mc DEBUG DIGEST] [r $sc DEBUG DIGEST]
            kill_server $s
        }
        kill_server $m
    }
}

test "Writes made while the snapshot is taken arrive, in order" {
    lassign [fresh_pair repl-diskless-sync no rdb-key-save-delay 200] m s
    set mc [client $m]
    set rc [client $s]
    r $mc DEBUG POPULATE 3000 key 10
    r $rc REPLICAOF 127.0.0.1 [dict get $m port]
    # the child needs ~0.6 s for 3000 keys: these land during the snapshot
    for {set i 0} {$i < 300} {incr i} {
        r $mc INCR during
        r $mc RPUSH during:list $i
        r $mc SET key:$i overwritten
    }
    repl_wait_link $rc
    repl_wait_caught_up $mc $rc
    assert_equal 300 [r $rc GET during]
    assert_equal [r $mc LRANGE during:list 0 -1] [r $rc LRANGE during:list 0 -1]
    assert_equal [r $mc DEBUG DIGEST] [r $rc DEBUG DIGEST]
    kill_server $m
    kill_server $s
}

test "The first replica's stream starts with its writes, not a PING, until the ping period has passed" {
    set m [start_server -config {repl-diskless-sync-delay 0 repl-ping-replica-period 3600}]
    set mc [client $m]
    # The server has been up long enough for a ping period of 1 s to have
    # passed, but nobody was attached: the period starts with the replica.
    r $mc CONFIG SET repl-ping-replica-period 1
    after 1500
    r $mc CONFIG SET repl-ping-replica-period 3600
    set x [client $m]
    send_raw $x "SYNC\r\n"
    # (bare newlines keep the link alive while the snapshot is made)
    set l ""
    while {$l eq ""} { set l [string trimleft [::cairn_h::line $x] "\n"] }
    assert_match {$*} $l
    set n [string range $l 1 end]
    # the snapshot payload has no CRLF after it
    ::cairn_h::bytes $x [expr {$n - 2}]
    after 1200
    r $mc SET k v
    assert_equal {SELECT 0} [read_reply $x]
    assert_equal {SET k v} [read_reply $x]
    kill_server $m
}

set m [start_server -config {repl-diskless-sync-delay 0}]
set mc [client $m]
set s1 [start_server]
set s1c [client $s1]
set s2 [start_server]
set s2c [client $s2]

test "Two replicas, INFO replication and ROLE on both sides" {
    r $mc SET a 1
    repl_attach $s1c $m
    repl_attach $s2c $m
    repl_wait_caught_up $mc $s1c
    repl_wait_caught_up $mc $s2c
    set i [server_info $mc replication]
    assert_equal master [dict get $i role]
    assert_equal 2 [dict get $i connected_slaves]
    assert_match "ip=127.0.0.1,port=[dict get $s1 port],state=online,offset=*,lag=*" [dict get $i slave0]
    assert_match "ip=127.0.0.1,port=[dict get $s2 port],state=online,offset=*,lag=*" [dict get $i slave1]
    assert_equal 1 [dict get $i repl_backlog_active]
    set ri [server_info $s1c replication]
    assert_equal slave [dict get $ri role]
    assert_equal [dict get $m port] [dict get $ri master_port]
    assert_equal up [dict get $ri master_link_status]
    assert_equal 0 [dict get $ri master_sync_in_progress]
    assert_equal [dict get $i master_replid] [dict get $ri master_replid]
    # Redis 7.0's field order, which parsers (sentinel) rely on
    set names {}
    foreach l [split [r $s1c INFO replication] \n] {
        if {[regexp {^([a-z_0-9]+):} $l -> n]} { lappend names $n }
    }
    assert_equal [list {*}{role master_host master_port master_link_status master_last_io_seconds_ago
        master_sync_in_progress slave_read_repl_offset slave_repl_offset slave_priority
        slave_read_only replica_announced connected_slaves master_failover_state master_replid
        master_replid2 master_repl_offset second_repl_offset repl_backlog_active repl_backlog_size
        repl_backlog_first_byte_offset repl_backlog_histlen}] $names
    set role [r $mc ROLE]
    assert_equal master [lindex $role 0]
    assert_equal 2 [llength [lindex $role 2]]
    assert_equal [dict get $s1 port] [lindex $role 2 0 1]
    set role [r $s1c ROLE]
    assert_equal [list slave 127.0.0.1 [dict get $m port] connected] [lrange $role 0 3]
}

test "A replica refuses writes (-READONLY), in MULTI too" {
    assert_error "READONLY You can't write against a read only replica." {r $s1c SET x 1}
    r $s1c MULTI
    assert_error "READONLY*" {r $s1c SET x 1}
    assert_error "EXECABORT*" {r $s1c EXEC}
    assert_equal 1 [r $s1c GET a]
    r $s1c CONFIG SET replica-read-only no
    assert_equal OK [r $s1c SET local-only 1]
    r $s1c DEL local-only
    r $s1c CONFIG SET replica-read-only yes
}

test "WAIT counts the replicas that acknowledged the client's writes" {
    r $mc SET w 1
    assert_equal 2 [r $mc WAIT 2 5000]
    assert_equal 2 [r $mc WAIT 0 0]
    # a third replica never comes: WAIT times out with the two it has
    assert_equal 2 [r $mc WAIT 3 300]
    assert_error "ERR WAIT cannot be used with replica instances*" {r $s1c WAIT 1 10}
}

test "The replica does not expire keys itself; the primary's DEL removes them" {
    r $mc DEBUG SET-ACTIVE-EXPIRE 0
    r $mc SET shortlived v PX 100
    repl_wait_caught_up $mc $s1c
    set size [r $s1c DBSIZE]
    after 300
    # logically expired on the replica, but stored until the DEL arrives
    assert_equal {} [r $s1c GET shortlived]
    assert_equal 0 [r $s1c EXISTS shortlived]
    assert_equal $size [r $s1c DBSIZE] "still stored"
    assert_equal {} [r $mc GET shortlived]
    repl_wait_caught_up $mc $s1c
    assert_equal [expr {$size - 1}] [r $s1c DBSIZE]
    r $mc DEBUG SET-ACTIVE-EXPIRE 1
}

test "A writable replica expires the keys its own clients gave a TTL, not the primary's" {
    r $mc DEBUG SET-ACTIVE-EXPIRE 0
    r $s1c CONFIG SET replica-read-only no
    r $mc SET fromprimary v PX 100
    repl_wait_caught_up $mc $s1c
    set size [r $s1c DBSIZE]
    set before [info_field $s1c expired_keys stats]
    r $s1c SET local v PX 100
    r $s1c SET local2 v
    r $s1c PEXPIRE local2 100
    r $s1c SET kept v PX 100
    r $s1c PERSIST kept
    assert_equal 3 [info_field $s1c slave_expires_tracked_keys stats]
    wait_for {[info_field $s1c expired_keys stats] == $before + 2} 5000 "local keys expired"
    after 200
    assert_equal [expr {$before + 2}] [info_field $s1c expired_keys stats]
    assert_equal 0 [info_field $s1c slave_expires_tracked_keys stats]
    # kept is left, and the primary's key stays stored until its DEL arrives.
    assert_equal [expr {$size + 1}] [r $s1c DBSIZE]
    assert_equal 1 [r $s1c EXISTS kept]
    r $mc DEBUG SET-ACTIVE-EXPIRE 1
    wait_for {[r $s1c DBSIZE] == $size} 5000 "the primary's DEL"
    r $s1c DEL kept
    r $s1c CONFIG SET replica-read-only yes
}

test "A chained replica gets the same bytes and offsets" {
    set s3 [start_server]
    set s3c [client $s3]
    repl_attach $s3c $s1
    for {set i 0} {$i < 100} {incr i} { r $mc SET chain:$i $i }
    r $mc MULTI
    r $mc INCR chain:tx
    r $mc INCR chain:tx
    r $mc EXEC
    repl_wait_caught_up $mc $s1c
    wait_for {[info_field $s3c master_repl_offset replication] == [info_field $s1c master_repl_offset replication]}
    assert_equal [info_field $mc master_replid replication] [info_field $s3c master_replid replication]
    assert_equal [r $mc DEBUG DIGEST] [r $s3c DEBUG DIGEST]
    kill_server $s3
}

test "A cut link (CLIENT KILL TYPE master) resumes with a partial resync" {
    set ok [repl_stat $mc sync_partial_ok]
    set full [repl_stat $mc sync_full]
    r $s1c CLIENT KILL TYPE master
    for {set i 0} {$i < 50} {incr i} { r $mc SET cut:$i $i }
    repl_wait_link $s1c
    repl_wait_caught_up $mc $s1c
    assert_equal [expr {$ok + 1}] [repl_stat $mc sync_partial_ok]
    assert_equal $full [repl_stat $mc sync_full]
    assert_equal [r $mc DEBUG DIGEST] [r $s1c DEBUG DIGEST]
    # from the primary's side: CLIENT KILL TYPE replica
    r $mc CLIENT KILL TYPE replica
    r $mc SET after-kill 1
    repl_wait_link $s1c
    repl_wait_link $s2c
    repl_wait_caught_up $mc $s1c
    repl_wait_caught_up $mc $s2c
    assert_equal [expr {$ok + 3}] [repl_stat $mc sync_partial_ok]
    assert_equal $full [repl_stat $mc sync_full]
}

# Restart replica s2 (its handle in srv) and wait until it caught up.
proc restart_s2 {srv} {
    set ::s2 [restart_server $srv]
    set ::s2c [client $::s2]
    repl_wait_link $::s2c
    repl_wait_caught_up $::mc $::s2c
}

test "A replica restarted from its own snapshot resyncs partially" {
    r $s2c SAVE
    kill_server $s2
    for {set i 0} {$i < 50} {incr i} { r $mc SET while-down:$i $i }
    set ok [repl_stat $mc sync_partial_ok]
    restart_s2 [dict merge $s2 [dict create args [list --replicaof 127.0.0.1 [dict get $m port]]]]
    assert_equal [expr {$ok + 1}] [repl_stat $mc sync_partial_ok]
    assert_equal [r $mc DEBUG DIGEST] [r $::s2c DEBUG DIGEST]
}

test "A replica killed without a snapshot comes back with a full sync" {
    kill_server $s2
    file delete [file join [dict get $s2 dir] dump.rdb]
    set full [repl_stat $mc sync_full]
    restart_s2 $s2
    assert_equal [expr {$full + 1}] [repl_stat $mc sync_full]
    assert_equal [r $mc DEBUG DIGEST] [r $::s2c DEBUG DIGEST]
}

test "replica-serve-stale-data no: -MASTERDOWN while the link is down" {
    r $s1c CONFIG SET replica-serve-stale-data no
    r $s1c CONFIG SET repl-timeout 60
    # a primary that does not exist: the link stays down
    set dead [start_server]
    set port [dict get $dead port]
    kill_server $dead
    r $s1c REPLICAOF 127.0.0.1 $port
    assert_error "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'." {r $s1c GET a}
    assert_match "*role:slave*" [r $s1c INFO replication] "allowed while stale"
    assert_equal down [info_field $s1c master_link_status replication]
    r $s1c CONFIG SET replica-serve-stale-data yes
    assert_equal 1 [r $s1c GET a]
    repl_attach $s1c $m
}

test "min-replicas-to-write refuses writes without enough good replicas" {
    repl_wait_online $mc 2
    r $mc CONFIG SET min-replicas-to-write 3
    assert_error "NOREPLICAS Not enough good replicas to write." {r $mc SET x 1}
    assert_equal 1 [r $mc GET a]
    r $mc CONFIG SET min-replicas-to-write 2
    assert_equal OK [r $mc SET x 1]
    r $mc CONFIG SET min-replicas-to-write 0
}

test "A promoted replica keeps the old ID: the other replica continues partially" {
    repl_wait_caught_up $mc $s1c
    repl_wait_caught_up $mc $::s2c
    set oldid [info_field $mc master_replid replication]
    kill_server $m
    r $s1c REPLICAOF NO ONE
    set i [server_info $s1c replication]
    assert_equal master [dict get $i role]
    assert_equal $oldid [dict get $i master_replid2]
    assert_not_equal $oldid [dict get $i master_replid]
    set full [repl_stat $s1c sync_full]
    repl_attach $::s2c $s1
    r $s1c SET after-failover 1
    repl_wait_caught_up $s1c $::s2c
    assert_equal 1 [repl_stat $s1c sync_partial_ok]
    assert_equal $full [repl_stat $s1c sync_full]
    assert_equal 1 [r $::s2c GET after-failover]
    assert_equal [info_field $s1c master_replid replication] [info_field $::s2c master_replid replication]
    assert_equal [r $s1c DEBUG DIGEST] [r $::s2c DEBUG DIGEST]
}

foreach {what script logpat} {
    "a garbage PSYNC reply" "+WHATEVER nonsense\r\n" "*unexpected reply to PSYNC*"
    "a malformed +FULLRESYNC" "+FULLRESYNC short\r\n" "*malformed +FULLRESYNC*"
    "a negative +FULLRESYNC offset" "+FULLRESYNC [string repeat f 40] -5\r\n\$0\r\n" "*malformed +FULLRESYNC*"
    "a garbage payload header" "+FULLRESYNC [string repeat a 40] 100\r\n#garbage\r\n" "*first byte is not '\$'*"
    "a corrupt snapshot" "+FULLRESYNC [string repeat b 40] 100\r\n\$16\r\nREDIS0010garbage" "*Failed trying to load the MASTER synchronization DB*"
    "a snapshot cut mid-transfer" "+FULLRESYNC [string repeat c 40] 100\r\n\$100000\r\nREDIS0010" "*during the transfer*"
    "an EOF-marked payload cut before its mark" "+FULLRESYNC [string repeat d 40] 100\r\n\$EOF:[string repeat x 40]\r\nREDIS0010abc" "*during the transfer*"
    "a garbage stream after +CONTINUE" "+CONTINUE\r\n*1\r\n\$4\r\nPING\r\n*x\r\ngarbage\r\n" "*Protocol error from the primary*"
} {
    test "A primary sending $what: clean log, reconnect, no crash" {
        # redis-server exits on a corrupt snapshot from its primary
        if {$what eq "a corrupt snapshot" && ![string match *cairn* [file tail $::cairn(server)]]} {
            skip_test "redis-server exits on a corrupt snapshot"
        }
        set s [start_server -config {repl-timeout 2}]
        set sc [client $s]
        r $sc SET mine 1
        fake_primary_run $sc [subst -nobackslashes -novariables $script]
        assert {$::fake_conns >= 2} "the replica reconnects"
        assert {[server_alive $s]}
        assert_equal PONG [r $sc PING]
        assert_equal down [info_field $sc master_link_status replication]
        if {[string match *cairn* [file tail $::cairn(server)]]} {
            assert_match $logpat [read_bytes [dict get $s log]] "the log says why"
        }
        r $sc REPLICAOF NO ONE
        kill_server $s
    }
}

finish
