# backup.tcl -- utils/cairn-backup (the server binary as `--backup`): full
# backups over the replication protocol from this server (disk and
# diskless payloads) and from Debian's redis-server 7.0, each restored into
# a fresh server of both kinds with the same DEBUG DIGEST and the same keys;
# the manifest's counts, AUTH, list; verify passing, then failing on a
# flipped byte (naming the file and offset) and on a damaged manifest, and
# restore refusing both; point selection by --offset and --at. stream:
# not counted by WAIT / min-replicas-to-write nor listed in INFO, writes
# then FLUSHALL restored to just before it (and to a moment by --at) into
# both kinds of server through an AOF directory; kill -9 of the tool
# leaves no gap; a Redis source streamed the same way. TLS: full and
# stream from the tls-port of both kinds, restored equal (also with
# restore --to-server over TLS); an untrusted
# server certificate refused with a clear error. A damaged payload from a
# fake primary (tests/helpers/fake_primary.py) caught while it arrives.
# Failover: three Debian redis-sentinels watch a primary and a replica
# (cairn, then redis-server); stream --sentinel archives while
# tests/helpers/ack_writer.py writes with WAIT; the primary is killed, the
# tool follows the promoted replica by PSYNC2 (one backup, no gap), and the
# restored end equals the new primary and holds every acknowledged write.
# The source restarted from its RDB (partial resync) and its AOF (a new
# full backup). Point in time: random --at moments against a writer's
# send/reply times, and full backups taken under a writer (cairn and
# redis-server sources) against the manifest's moment. The tool killed mid-snapshot. The tool ahead of a
# promoted replica (REPLICAOF NO ONE, and a sentinel failover while the
# replica's link was down): a new backup, the divergence logged and
# listed, and the write the promotion lost restorable from the old
# timeline (--at, --backup OLD --offset END).
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]

if {$::cairn(server) eq $::cairn(reference)} {
    puts "\[skip\] backup: cairn's own tool"
    finish
}
set ref $::cairn(reference)
# The slack of time comparisons (assert_writes_at): the tool stamps what it
# reads when it reads it, and a loaded machine delays the read.
set PITR_SLACK 0.2

# The server behind `c` holds a prefix PREFIX:0 .. PREFIX:k-1 of the n
# sequential writes, every one acknowledged (the array named `acked`)
# before moment `at` and none sent (`sent`) after it, give or take
# PITR_SLACK. Returns k.
proc assert_writes_at {c prefix n sent acked at what} {
    upvar 1 $sent s $acked a
    set keys {}
    for {set i 0} {$i < $n} {incr i} { lappend keys $prefix:$i }
    set vals [r $c MGET {*}$keys]
    set k 0
    while {$k < $n && [lindex $vals $k] eq $k} { incr k }
    for {set i $k} {$i < $n} {incr i} {
        assert_equal "" [lindex $vals $i] "$what: $prefix:$i present after the missing $prefix:$k"
    }
    for {set i 0} {$i < $n} {incr i} {
        if {$a($i) < $at - $::PITR_SLACK} {
            assert {$i < $k} "$what: $prefix:$i acknowledged at $a($i) is missing"
        }
        if {$s($i) > $at + $::PITR_SLACK} {
            assert {$i >= $k} "$what: $prefix:$i sent at $s($i) is there"
        }
    }
    return $k
}

# A server of `binary` started from `restore ... args` (the caller kills it).
proc restore_start {repo binary args} {
    set s [start_server -binary $binary]
    stop_server $s
    set out [backup_ok restore --repo $repo --to [dict get $s dir] --force {*}$args]
    dict set s config [list appendonly [expr {[string match *appendonlydir* $out] ? "yes" : "no"}]]
    return [restart_server $s]
}

proc restore_digest {repo binary args} {
    set s [restore_start $repo $binary {*}$args]
    set d [r [client $s] DEBUG DIGEST]
    kill_server $s
    return $d
}
if {$ref eq "" && [file executable /usr/bin/redis-server]} { set ref /usr/bin/redis-server }

# Runs the tool: {exit-status stdout+stderr}.
proc backup_tool {args} {
    set code 0
    set tool [file join $::cairn_h::root utils cairn-backup]
    if {[catch {exec env CAIRN_SERVER=$::cairn(server) timeout 60 $tool {*}$args 2>@1} out opts]} {
        set ec [dict get $opts -errorcode]
        set code [expr {[lindex $ec 0] eq "CHILDSTATUS" ? [lindex $ec 2] : "?$ec"}]
    }
    if {[string match *Sanitizer* $out] || [string match "*runtime error*" $out]} {
        error "sanitizer report: $out"
    }
    return [list $code $out]
}

proc backup_ok {args} {
    lassign [backup_tool {*}$args] code out
    assert_equal 0 $code "cairn-backup $args: $out"
    return $out
}

proc backup_ids {repo} {
    return [lsort [glob -nocomplain -tails -directory [file join $repo backups] -type d {[0-9]*}]]
}

proc manifest_field {repo id key} {
    set f [open [file join $repo backups $id manifest]]
    set text [read $f]
    close $f
    foreach line [split $text \n] {
        if {[lindex $line 0] eq $key} { return [lrange $line 1 end] }
    }
    return ""
}

# Restore `id` into a fresh server of `binary` and compare it with what
# `want_digest` / `want_meta` say the source held at the backup.
proc restore_and_compare {repo id binary want_digest want_meta} {
    set s [start_server -binary $binary]
    stop_server $s
    backup_ok restore --repo $repo --to [dict get $s dir] --backup $id --force
    set s [restart_server $s]
    set sc [client $s]
    assert_equal $want_digest [r $sc DEBUG DIGEST] "DEBUG DIGEST after restoring into [file tail $binary]"
    set got [rdbdata_meta_all $sc]
    assert_equal [dict size $want_meta] [dict size $got] "key count"
    dict for {k v} $want_meta {
        assert_equal $v [dict get $got $k] "key $k: type encoding pexpiretime digest"
    }
    kill_server $s
}

proc total_keys {c} {
    set n 0
    dict for {db v} [server_info $c keyspace] {
        if {[regexp {^keys=(\d+)} $v -> k]} { incr n $k }
    }
    return $n
}

set repo [file join $::cairn(tmp) repo]

foreach mode {disk diskless} {
    test "Full backup from this server ($mode payload) restores into this server and redis-server" {
        set diskless [expr {$mode eq "diskless" ? "yes" : "no"}]
        set p [start_server -config [list repl-diskless-sync $diskless repl-diskless-sync-delay 0]]
        set pc [client $p]
        rdbdata_populate $pc
        r $pc DEBUG POPULATE 1500 pop 30
        set digest [r $pc DEBUG DIGEST]
        set meta [rdbdata_meta_all $pc]
        set before [backup_ids $repo]
        set copies [file join $::cairn(tmp) copies-$mode]
        file mkdir $copies
        # while the snapshot is taken the tool is no good replica for min-replicas-to-write
        r $pc CONFIG SET rdb-key-save-delay 1000
        r $pc CONFIG SET min-replicas-to-write 1
        set tool [file join $::cairn_h::root utils cairn-backup]
        set bg [exec env CAIRN_SERVER=$::cairn(server) $tool full --server 127.0.0.1:[dict get $p port] \
                --repo [file join $::cairn(tmp) repo-bg-$mode] 2>/dev/null &]
        wait_for {[string length [r $pc CLIENT LIST TYPE replica]] > 0} 5000 "the tool attached"
        assert_error "NOREPLICAS*" {r $pc SET refused 1}
        assert_equal 0 [info_field $pc connected_slaves replication]
        ::cairn_h::wait_exit $bg 20000
        r $pc CONFIG SET min-replicas-to-write 0
        r $pc CONFIG SET rdb-key-save-delay 0
        set out [backup_ok full --server 127.0.0.1:[dict get $p port] --repo $repo --archive-cmd "cp %f $copies/"]
        assert_match "*[expr {$mode eq "diskless" ? "diskless EOF-mark" : "sized"}] payload*" $out
        set id [lindex [backup_ids $repo] end]
        assert {[lsearch $before $id] < 0} "a new backup: $out"
        assert_equal [total_keys $pc] [manifest_field $repo $id keys] "manifest key count"
        assert_equal [info_field $pc master_replid replication] [manifest_field $repo $id replid]
        assert_equal [string length [manifest_field $repo $id file-sha256]] 64
        # --archive-cmd ran for each finished file
        foreach f {snapshot.rdb.zst manifest} {
            assert_equal [read_bytes [file join $repo backups $id $f]] [read_bytes [file join $copies $f]] "copied $f"
        }
        lassign [backup_tool full --server 127.0.0.1:[dict get $p port] --repo $repo --archive-cmd "false %f"] code out
        assert_equal 1 $code
        assert_match "*--archive-cmd failed*" $out
        # that backup is complete in the repository all the same
        set extra [lindex [backup_ids $repo] end]
        backup_ok verify --repo $repo $extra
        file delete -force [file join $repo backups $extra]
        # the primary does not count the finished tool as a replica
        wait_for {[info_field $pc connected_slaves replication] == 0} 5000 "connected_slaves"
        kill_server $p
        restore_and_compare $repo $id $::cairn(server) $digest $meta
        if {$ref ne ""} { restore_and_compare $repo $id $ref $digest $meta }
    }
}

test "Full backup from redis-server restores into this server and redis-server" {
    if {$ref eq ""} { skip_test "no redis-server" }
    set p [start_server -binary $ref -config {repl-diskless-sync-delay 0 requirepass s3cret}]
    set pc [client $p]
    r $pc AUTH s3cret
    rdbdata_populate $pc
    r $pc DEBUG POPULATE 1500 pop 30
    set digest [r $pc DEBUG DIGEST]
    set meta [rdbdata_meta_all $pc]
    lassign [backup_tool full --server 127.0.0.1:[dict get $p port] --repo $repo] code out
    assert_equal 1 $code
    assert_match "*AUTH*" $out
    set out [backup_ok full --server 127.0.0.1:[dict get $p port] --repo $repo --pass s3cret]
    assert_match "*redis_version:7.0*" $out
    set id [lindex [backup_ids $repo] end]
    assert_equal [total_keys $pc] [manifest_field $repo $id keys]
    kill_server $p
    restore_and_compare $repo $id $::cairn(server) $digest $meta
    restore_and_compare $repo $id $ref $digest $meta
}

# A full backup taken while a client writes: the snapshot holds exactly
# the writes made before its moment (a prefix, every one acknowledged
# before the manifest's time, none sent after it), from cairn and from
# redis-server.
foreach kind {cairn redis} {
    test "full under write load from $kind: the backup holds exactly the writes made before its moment" {
        if {$kind eq "redis" && $ref eq ""} { skip_test "no redis-server" }
        set bin [expr {$kind eq "redis" ? $ref : $::cairn(server)}]
        set p [start_server -binary $bin -config {repl-diskless-sync-delay 0 rdb-key-save-delay 200}]
        set pc [client $p]
        r $pc DEBUG POPULATE 3000 pre 100
        set lrepo [file join $::cairn(tmp) lrepo-$kind]
        set tool [file join $::cairn_h::root utils cairn-backup]
        set bg [exec env CAIRN_SERVER=$::cairn(server) $tool full --server 127.0.0.1:[dict get $p port] \
                --repo $lrepo >& [file join $::cairn(tmp) full-load-$kind.log] &]
        set n 0
        while {[::cairn_h::pid_alive $bg] || $n < 50} {
            set fw_sent($n) [expr {[clock microseconds] / 1e6}]
            r $pc SET fw:$n $n
            set fw_acked($n) [expr {[clock microseconds] / 1e6}]
            incr n
            after 5
        }
        assert {[::cairn_h::wait_exit $bg 1000]} "the backup finished"
        set id [lindex [backup_ids $lrepo] 0]
        assert {$id ne ""} "a backup: [read_bytes [file join $::cairn(tmp) full-load-$kind.log]]"
        backup_ok verify --repo $lrepo
        set s [restore_start $lrepo $::cairn(server) --backup $id]
        set k [assert_writes_at [client $s] fw $n fw_sent fw_acked [manifest_field $lrepo $id time] "backup $id"]
        assert_equal [expr {3000 + $k}] [r [client $s] DBSIZE] "the populated keys and the writes before the moment"
        assert {$k > 0 && $k < $n} "the snapshot came amid the writes ($k of $n before it)"
        kill_server $s
        array unset fw_sent
        array unset fw_acked
        kill_server $p
    }
}

test "functions libraries: a full backup keeps them, verify accepts them, restore brings them back" {
    foreach bin [list $::cairn(server) $ref] {
        if {$bin eq ""} continue
        set p [start_server -binary $bin -config {repl-diskless-sync-delay 0}]
        set pc [client $p]
        r $pc FUNCTION LOAD "#!lua name=bklib\nredis.register_function('bkf', function(keys, args) return 'bk' end)"
        r $pc SET k v
        set frepo [file join $::cairn(tmp) frepo-[file tail $bin]]
        backup_ok full --server 127.0.0.1:[dict get $p port] --repo $frepo
        backup_ok verify --repo $frepo
        kill_server $p
        set s [start_server]
        stop_server $s
        backup_ok restore --repo $frepo --to [dict get $s dir] --force
        set s [restart_server $s]
        set sc [client $s]
        assert_equal {bk v} [list [r $sc FCALL bkf 0] [r $sc GET k]] "restored into a data directory"
        kill_server $s
        set t [start_server]
        set tc [client $t]
        set out [backup_ok restore --repo $frepo --to-server 127.0.0.1:[dict get $t port]]
        assert_equal {bk v} [list [r $tc FCALL bkf 0] [r $tc GET k]] "restored --to-server: $out"
        kill_server $t
    }
}

test "list shows every backup; restore picks by --offset and --at" {
    set ids [backup_ids $repo]
    assert {[llength $ids] >= 2} "backups: $ids"
    set out [backup_ok list --repo $repo]
    foreach id $ids { assert_match "*backup $id *" $out }
    assert_match "*restorable: [llength $ids] backups*" $out
    set first [lindex $ids 0]
    set to [file join $::cairn(tmp) pick]
    set off [manifest_field $repo $first offset]
    set out [backup_ok restore --repo $repo --to $to --offset $off --force]
    assert_match "*restored *" $out
    # --at one second before the second backup: the first (or another
    # taken before it) is chosen, never a later one
    set t [manifest_field $repo [lindex $ids 1] time]
    set out [backup_ok restore --repo $repo --to $to --at [expr {$t - 0.0005}] --force]
    assert_match "*restored $first:*" $out
    lassign [backup_tool restore --repo $repo --to $to --at 2001-01-01T00:00:00Z --force] code out
    assert_equal 1 $code
    assert_match "*no backup was taken at or before*" $out
    lassign [backup_tool restore --repo $repo --to $to --at "yesterday"] code out
    assert_equal 2 $code
}

test "verify passes, then names the file and offset of a flipped byte; restore refuses it" {
    set out [backup_ok verify --repo $repo]
    assert_match "*all sound*" $out
    set id [lindex [backup_ids $repo] 0]
    set file [file join $repo backups $id snapshot.rdb.zst]
    set data [read_bytes $file]
    set pos [expr {[string length $data] / 2}]
    binary scan [string index $data $pos] cu b
    write_bytes $file [string replace $data $pos $pos [binary format c [expr {$b ^ 0x55}]]]
    lassign [backup_tool verify --repo $repo] code out
    assert_equal 1 $code
    assert_match "*verify failed: $file: SHA-256 differs*offset 0..*" $out
    assert_match "*the loader:*offset*" $out
    # the other backups still verify one by one
    set other [lindex [backup_ids $repo] 1]
    backup_ok verify --repo $repo $other
    lassign [backup_tool restore --repo $repo --to [file join $::cairn(tmp) bad] --backup $id] code out
    assert_equal 1 $code
    assert_match "*SHA-256 differs*nothing restored*" $out
    assert {![file exists [file join $::cairn(tmp) bad dump.rdb]]} "no dump.rdb written"
    write_bytes $file $data
    backup_ok verify --repo $repo $id
}

test "verify names a damaged or truncated manifest" {
    set id [lindex [backup_ids $repo] 0]
    set mf [file join $repo backups $id manifest]
    set data [read_bytes $mf]
    write_bytes $mf [string map {"keys " "keys 1"} $data]
    lassign [backup_tool verify --repo $repo] code out
    assert_equal 1 $code
    assert_match "*verify failed: $mf: manifest damaged*" $out
    write_bytes $mf [string range $data 0 end-20]
    lassign [backup_tool verify --repo $repo $id] code out
    assert_equal 1 $code
    assert_match "*$mf: manifest truncated*" $out
    write_bytes $mf $data
    backup_ok verify --repo $repo
}

test "prune keeps the newest N and the window, removing the rest with their streams" {
    set ids [backup_ids $repo]
    set n [llength $ids]
    assert {$n >= 3} "backups: $ids"
    set out [backup_ok prune --repo $repo --keep-last 1 --dry-run]
    assert_match "*[expr {$n - 1}] of $n backups would be pruned*" $out
    assert_equal $ids [backup_ids $repo] "a dry run removes nothing"
    lassign [backup_tool prune --repo $repo --keep-last 1 --dry-run --json] code out
    assert_equal "{\"pruned\":\[\"[join [lrange $ids 0 end-1] {","}]\"\],\"backups\":$n,\"dry_run\":true}" [string trim $out]
    set out [backup_ok prune --repo $repo --keep-within 1h]
    assert_match "*0 of $n backups pruned*" $out
    file mkdir [file join $repo stream [lindex $ids 0]]
    set out [backup_ok prune --repo $repo --keep-last [expr {$n - 1}]]
    assert_match "*pruned [lindex $ids 0] *" $out
    assert_equal [lrange $ids 1 end] [backup_ids $repo]
    assert {![file exists [file join $repo stream [lindex $ids 0]]]} "its stream went with it"
    backup_ok verify --repo $repo
    lassign [backup_tool prune --repo $repo] code out
    assert_equal 2 $code
    lassign [backup_tool prune --repo $repo --keep-within soon] code out
    assert_equal 2 $code
}

# ---- stream ----

# Starts `cairn-backup stream` in the background; returns its pid.
proc stream_start {srv repo log args} {
    set tool [file join $::cairn_h::root utils cairn-backup]
    set pid [exec env CAIRN_SERVER=$::cairn(server) $tool stream --server 127.0.0.1:[dict get $srv port] \
            --repo $repo --segment-seconds 0.5 {*}$args >>& $log &]
    lappend ::cairn_h::servers $pid
    set f [open [file join $::cairn(tmp) servers.pids] a]
    puts $f "$pid [::cairn_h::proc_starttime $pid]"
    close $f
    return $pid
}

proc stream_stop {pid {sig TERM}} {
    ::cairn_h::signal $pid $sig
    assert {[::cairn_h::wait_exit $pid 10000]} "the stream process ends on SIG$sig"
    ::cairn_h::forget $pid
    foreach log [glob -nocomplain [file join $::cairn(tmp) stream-*.log]] {
        set text [read_bytes $log]
        if {[string match *Sanitizer* $text] || [string match "*runtime error*" $text]} {
            error "sanitizer report in $log: $text"
        }
    }
}

# The end of the newest backup's archived range, from list --json.
proc stream_end {repo} {
    lassign [backup_tool list --repo $repo --json] code out
    set ends [regexp -all -inline {"stream_end":(\d+)} $out]
    if {![llength $ends]} { return -1 }
    return [lindex $ends end]
}

# Wait until the archive holds everything the primary has streamed.
proc stream_caught_up {repo pc} {
    set off [info_field $pc master_repl_offset replication]
    wait_for {[stream_end $repo] >= $off} 15000 "archive reaching offset $off"
}

proc stream_writes {pc tag n} {
    for {set i 0} {$i < $n} {incr i} {
        r $pc SET $tag:$i v$i
        r $pc INCR $tag:counter
        r $pc RPUSH $tag:list $i
    }
    r $pc SELECT 4
    r $pc HSET $tag:h f $n
    r $pc MULTI
    r $pc SADD $tag:s a b c
    r $pc ZADD $tag:z 1 m
    r $pc EXEC
    r $pc SELECT 0
}

# Restore with `args` into a fresh server of `binary` (AOF form) and return its DEBUG DIGEST.

foreach kind {cairn redis} {
    test "stream from $kind: not counted as a replica; restore before FLUSHALL and at a moment" {
        if {$kind eq "redis" && $ref eq ""} { skip_test "no redis-server" }
        set bin [expr {$kind eq "redis" ? $ref : $::cairn(server)}]
        # Redis drops a replica that sends no ACK after repl-timeout: the
        # tool must come back by partial resync (a short timeout shows it)
        set p [start_server -binary $bin -config {repl-diskless-sync-delay 0 repl-timeout 2}]
        set pc [client $p]
        stream_writes $pc before 50
        set srepo [file join $::cairn(tmp) srepo-$kind]
        set pid [stream_start $p $srepo [file join $::cairn(tmp) stream-$kind.log]]
        wait_for {[llength [backup_ids $srepo]] == 1} 10000 "the first backup"
        stream_caught_up $srepo $pc
        r $pc SET waited 1
        assert_equal 0 [r $pc WAIT 1 200] "WAIT does not count the archiver"
        if {$kind eq "cairn"} {
            assert_equal 0 [info_field $pc connected_slaves replication]
            r $pc CONFIG SET min-replicas-to-write 1
            assert_error "NOREPLICAS*" {r $pc SET refused 1}
            r $pc CONFIG SET min-replicas-to-write 0
        }
        stream_writes $pc phase1 80
        set d1 [r $pc DEBUG DIGEST]
        stream_caught_up $srepo $pc
        after 300
        set t [format %.3f [expr {[clock milliseconds] / 1000.0}]]
        after 300
        stream_writes $pc phase2 40
        set d2 [r $pc DEBUG DIGEST]
        r $pc FLUSHALL
        r $pc SET after flush
        stream_caught_up $srepo $pc
        set log [file join $::cairn(tmp) stream-$kind.log]
        if {$kind eq "redis"} {
            wait_for {[string match "*partial resync with*" [read_bytes $log]]} 10000 "a partial resync after Redis dropped the link"
        }
        stream_caught_up $srepo $pc
        stream_stop $pid
        assert_equal 1 [llength [backup_ids $srepo]] "one full backup, the rest partial resyncs"
        backup_ok verify --repo $srepo
        assert_equal $d2 [restore_digest $srepo $::cairn(server) --before-command FLUSHALL] "before FLUSHALL, cairn"
        assert_equal $d1 [restore_digest $srepo $::cairn(server) --at $t] "--at, cairn"
        if {$ref ne ""} {
            assert_equal $d2 [restore_digest $srepo $ref --before-command flushall] "before FLUSHALL, redis-server"
        }
        assert_equal [r $pc DEBUG DIGEST] [restore_digest $srepo $::cairn(server)] "the end of the archive"
        # --to-server: the same point loaded into a running server of the source's kind
        set t [start_server -binary $bin -config {requirepass pw}]
        set tc [client $t]
        r $tc AUTH pw
        r $tc SET busy 1
        lassign [backup_tool restore --repo $srepo --before-command FLUSHALL --to-server 127.0.0.1:[dict get $t port] --pass pw] code out
        assert_equal 1 $code
        assert_match "*not empty*" $out
        r $tc DEL busy
        set out [backup_ok restore --repo $srepo --before-command FLUSHALL --to-server 127.0.0.1:[dict get $t port] --pass pw]
        assert_match "*loaded * keys and * bytes of commands*" $out
        assert_equal $d2 [r $tc DEBUG DIGEST] "--to-server before FLUSHALL"
        kill_server $t
        kill_server $p
    }
}

# A source whose snapshot takes `delay` us per key, holding `keys` keys of
# `size` bytes: {server client}.
proc slow_snapshot_source {delay keys size} {
    set p [start_server -config [list repl-diskless-sync-delay 0 rdb-key-save-delay $delay]]
    set pc [client $p]
    r $pc DEBUG POPULATE $keys pre $size
    return [list $p $pc]
}

# Point in time: a writer notes when it sent each write and when the
# reply came. A restore --at T must hold a prefix of the writes (they are
# sequential), every write acknowledged before T and none sent after it,
# give or take PITR_SLACK: the tool stamps bytes when it reads them, so a
# loaded machine that delays the tool's read moves a write's stamp later
# (utils/README.md: the resolution is one read).
test "point in time: restores at random moments hold exactly the writes acknowledged before them" {
    set p [start_server -config {repl-diskless-sync-delay 0}]
    set pc [client $p]
    set prepo [file join $::cairn(tmp) prepo]
    set pid [stream_start $p $prepo [file join $::cairn(tmp) stream-pitr.log]]
    wait_for {[llength [backup_ids $prepo]] == 1} 10000 "the first backup"
    set n 150
    for {set i 0} {$i < $n} {incr i} {
        set pit_sent($i) [expr {[clock microseconds] / 1e6}]
        r $pc SET pit:$i $i
        set pit_acked($i) [expr {[clock microseconds] / 1e6}]
        after 10
    }
    stream_caught_up $prepo $pc
    stream_stop $pid
    set id [lindex [backup_ids $prepo] 0]
    set end [stream_end $prepo]
    lassign [backup_tool restore --repo $prepo --to [file join $::cairn(tmp) pitr-json] --json] code out
    assert_equal 0 $code $out
    assert_match "*{\"backup\":\"$id\",\"replid\":\"*\",\"backup_offset\":*,\"offset\":$end,\"keys\":*,\"to\":\"*pitr-json\",\"written\":\"appendonlydir\"}*" $out
    set seed [clock clicks]
    expr {srand($seed)}
    set first $pit_sent(0)
    set span [expr {$pit_acked([expr {$n - 1}]) - $first}]
    for {set m 0} {$m < 6} {incr m} {
        set at [format %.6f [expr {$first + rand() * $span}]]
        set s [restore_start $prepo $::cairn(server) --at $at]
        assert_writes_at [client $s] pit $n pit_sent pit_acked $at "--at $at (seed $seed)"
        kill_server $s
    }
    array unset pit_sent
    array unset pit_acked
    kill_server $p
}

test "stream under writes during its snapshot, killed with -9 and restarted: partial resync, no gap, the end restores" {
    # rdb-key-save-delay: the snapshot of 300 keys takes ~1 s, the writes land meanwhile
    lassign [slow_snapshot_source 3000 300 10] p pc
    set srepo [file join $::cairn(tmp) srepo-kill]
    set log [file join $::cairn(tmp) stream-kill.log]
    set copies [file join $::cairn(tmp) copies-stream]
    file mkdir $copies
    set pid [stream_start $p $srepo $log --segment-seconds 30 --archive-cmd "cp %f $copies/"]
    # the sync has started once its snapshot child is forked (no PING moves the offset at once)
    wait_for {[info_field $pc total_forks stats] > 0 || [llength [backup_ids $srepo]]} 5000 "the sync starting"
    set t0 [clock milliseconds]
    stream_writes $pc a 60
    wait_for {[llength [backup_ids $srepo]] == 1} 10000 "the first backup"
    set id [lindex [backup_ids $srepo] 0]
    assert {[manifest_field $srepo $id finished] * 1000 > $t0} "writes were made while the snapshot was taken"
    r $pc CONFIG SET rdb-key-save-delay 0
    stream_writes $pc b 30
    after 1500 ;# the active segment is fdatasynced every second
    stream_stop $pid KILL
    # a segment being written when the kill came is sealed by the next run
    assert_equal 1 [llength [glob -nocomplain [file join $srepo stream * active-*.raw]]] "an active segment"
    stream_writes $pc c 30
    set pid [stream_start $p $srepo $log --archive-cmd "cp %f $copies/"]
    stream_caught_up $srepo $pc
    stream_stop $pid
    assert_equal 1 [llength [backup_ids $srepo]] "no new full backup"
    set segs [lsort [glob -tails -directory [lindex [glob [file join $srepo stream *]] 0] *.seg.*]]
    assert_equal $segs [lsort [glob -tails -directory $copies *.seg.*]] "--archive-cmd copied every sealed segment"
    set f [open $log]
    set text [read $f]
    close $f
    assert_match "*sealing the segment an earlier run left*" $text
    assert {![llength [glob -nocomplain [file join $srepo stream * active-*]]]} "no active segment left"
    assert_match "*partial resync with*" $text
    set out [backup_ok list --repo $srepo]
    assert {![string match *GAP* $out]} "no gap: $out"
    backup_ok verify --repo $srepo
    assert_equal [r $pc DEBUG DIGEST] [restore_digest $srepo $::cairn(server)]
    kill_server $p
}

test "stream killed with -9 mid-snapshot, then restarted: no half backup listed, a full backup, no gap, the end restores" {
    # the snapshot of 3000 keys takes ~3 s and leaves the child in pieces:
    # the tool opens its file at the first, and the kill lands inside
    lassign [slow_snapshot_source 1000 3000 1000] p pc
    set krepo [file join $::cairn(tmp) krepo]
    set log [file join $::cairn(tmp) stream-kill-snap.log]
    set pid [stream_start $p $krepo $log]
    wait_for {[llength [glob -nocomplain [file join $krepo backups .tmp-* snapshot.rdb.zst]]] == 1} 10000 "the snapshot arriving"
    stream_stop $pid KILL
    assert_equal {} [backup_ids $krepo] "no backup from the killed transfer"
    set stale [glob -nocomplain -tails -directory [file join $krepo backups] .tmp-*]
    assert_equal 1 [llength $stale] "the killed run's half backup"
    set out [backup_ok list --repo $krepo]
    assert_match "*no backups*" $out
    r $pc CONFIG SET rdb-key-save-delay 0
    stream_writes $pc k 30
    set pid [stream_start $p $krepo $log]
    wait_for {[llength [backup_ids $krepo]] == 1} 10000 "a full backup by the next run"
    assert_equal {} [glob -nocomplain -directory [file join $krepo backups] .tmp-*] "the half backup removed"
    assert_match "*removed *$stale, a backup left unfinished by an earlier run*" [read_bytes $log]
    stream_writes $pc l 30
    stream_caught_up $krepo $pc
    stream_stop $pid
    set out [backup_ok list --repo $krepo]
    assert {![string match *GAP* $out]} "no gap: $out"
    backup_ok verify --repo $krepo
    assert_equal [r $pc DEBUG DIGEST] [restore_digest $krepo $::cairn(server)]
    kill_server $p
}

proc full_start {srv repo log} {
    set tool [file join $::cairn_h::root utils cairn-backup]
    set pid [exec env CAIRN_SERVER=$::cairn(server) $tool full --server 127.0.0.1:[dict get $srv port] \
            --repo $repo >>& $log &]
    lappend ::cairn_h::servers $pid
    return $pid
}

proc tmp_dirs {repo} { return [lsort [glob -nocomplain -tails -directory [file join $repo backups] .tmp-*]] }

test "full killed with -9 leaves its .tmp directory; the next full removes it, but not one a live process owns" {
    lassign [slow_snapshot_source 1000 3000 1000] p pc
    set trepo [file join $::cairn(tmp) tmprepo]
    set log [file join $::cairn(tmp) full-kill.log]
    set pid [full_start $p $trepo $log]
    wait_for {[llength [glob -nocomplain [file join $trepo backups .tmp-* snapshot.rdb.zst]]] == 1} 10000 "the snapshot arriving"
    ::cairn_h::signal $pid KILL
    ::cairn_h::wait_exit $pid 5000
    ::cairn_h::forget $pid
    set stale [tmp_dirs $trepo]
    assert_equal 1 [llength $stale]
    # a backup some live process is writing: it holds the directory's flock
    set live [file join $trepo backups .tmp-live]
    file mkdir $live
    write_bytes [file join $live snapshot.rdb.zst] partial
    set holder [exec flock $live sleep 60 &]
    lappend ::cairn_h::servers $holder
    wait_for {[catch {exec flock -n $live true}]} 5000 "the holder's lock"
    r $pc CONFIG SET rdb-key-save-delay 0
    set out [backup_ok full --server 127.0.0.1:[dict get $p port] --repo $trepo]
    assert_match "*removed *$stale, a backup left unfinished by an earlier run*" $out
    assert {![string match *.tmp-live* $out]} $out
    assert_equal .tmp-live [tmp_dirs $trepo] "the live one kept"
    assert_equal 1 [llength [backup_ids $trepo]]
    # once its owner is gone, it is stale too (flock(1)'s child, the
    # sleep, holds the lock as well)
    catch {exec pkill -KILL -P $holder}
    ::cairn_h::signal $holder KILL
    ::cairn_h::wait_exit $holder 5000
    ::cairn_h::forget $holder
    set out [backup_ok full --server 127.0.0.1:[dict get $p port] --repo $trepo]
    assert_match "*removed *.tmp-live, a backup left unfinished*" $out
    assert_equal {} [tmp_dirs $trepo]
    assert_equal 2 [llength [backup_ids $trepo]]
    backup_ok verify --repo $trepo
    kill_server $p
}

test "a missing segment: list shows the gap, verify names the missing offsets, restore refuses the end but reaches what precedes it" {
    set p [start_server -config {repl-diskless-sync-delay 0}]
    set pc [client $p]
    set grepo [file join $::cairn(tmp) grepo]
    set pid [stream_start $p $grepo [file join $::cairn(tmp) stream-gap.log] --segment-seconds 0.3]
    wait_for {[llength [backup_ids $grepo]] == 1} 10000 "the first backup"
    set dir [file join $grepo stream [lindex [backup_ids $grepo] 0]]
    # three bursts, each sealed into segments before the next starts
    foreach tag {g1 g2 g3} {
        set nseg [llength [glob -nocomplain -directory $dir *.seg.zst]]
        stream_writes $pc $tag 10
        if {$tag eq "g1"} {
            set d1 [r $pc DEBUG DIGEST]
            set off1 [info_field $pc master_repl_offset replication]
        }
        stream_caught_up $grepo $pc
        wait_for {[llength [glob -nocomplain -directory $dir *.seg.zst]] > $nseg} 5000 "a segment sealed after $tag"
    }
    stream_stop $pid
    # the first segment after g1 goes missing
    set gone ""
    foreach seg [lsort [glob -directory $dir *.seg.zst]] {
        scan [file tail $seg] %lld start
        if {$start >= $off1} { set gone $seg; set first_end $start; break }
    }
    assert {$gone ne ""} "a segment after offset $off1"
    file delete $gone [string map {.seg.zst .seg.meta} $gone]
    set out [backup_ok list --repo $grepo]
    assert_match "*GAP: nothing archived after offset $first_end*" $out
    lassign [backup_tool verify --repo $grepo] code out
    assert_equal 1 $code
    assert_match "*offsets ($first_end, *\] are missing*" $out
    lassign [backup_tool restore --repo $grepo --to [file join $::cairn(tmp) gap-end]] code out
    assert_equal 1 $code
    assert_match "*has a gap at offset $first_end*" $out
    assert {![file exists [file join $::cairn(tmp) gap-end dump.rdb]]} "nothing restored"
    assert_equal $d1 [restore_digest $grepo $::cairn(server) --offset $off1] "what precedes the gap"
    kill_server $p
}

test "verify names a damaged segment and restore refuses to use it" {
    set srepo [file join $::cairn(tmp) srepo-kill]
    set seg [lindex [lsort [glob [file join $srepo stream * *.seg.zst]]] 0]
    set data [read_bytes $seg]
    write_bytes $seg [string range $data 0 end-3]
    lassign [backup_tool verify --repo $srepo] code out
    assert_equal 1 $code
    assert_match "*verify failed: $seg:*" $out
    lassign [backup_tool restore --repo $srepo --to [file join $::cairn(tmp) badseg]] code out
    assert_equal 1 $code
    assert_match "*$seg*" $out
    write_bytes $seg $data
}

test "--encrypt-key: snapshots and segments encrypted at rest; a missing or wrong key is named" {
    set key [file join $::cairn(tmp) key]
    set f [open $key w]
    puts $f [string repeat 0123456789abcdef 4]
    close $f
    set other [file join $::cairn(tmp) key2]
    set f [open $other w]
    puts $f [string repeat fedcba9876543210 4]
    close $f
    set p [start_server -config {repl-diskless-sync-delay 0}]
    set pc [client $p]
    rdbdata_populate $pc
    set erepo [file join $::cairn(tmp) erepo]
    set pid [stream_start $p $erepo [file join $::cairn(tmp) stream-enc.log] --encrypt-key $key]
    wait_for {[llength [backup_ids $erepo]] == 1} 10000 "the first backup"
    stream_writes $pc e 30
    set digest [r $pc DEBUG DIGEST]
    r $pc FLUSHALL
    stream_caught_up $erepo $pc
    stream_stop $pid
    set id [lindex [backup_ids $erepo] 0]
    set snap [file join $erepo backups $id snapshot.rdb.zst]
    assert_equal CAIRN-BACKUP-GCM [string range [read_bytes $snap] 0 15] "the stored snapshot is encrypted"
    foreach seg [glob [file join $erepo stream * *.seg.zst]] {
        assert_equal CAIRN-BACKUP-GCM [string range [read_bytes $seg] 0 15] "segment $seg is encrypted"
    }
    assert_match "encryption aes-256-gcm *" [list encryption {*}[manifest_field $erepo $id encryption]]
    lassign [backup_tool verify --repo $erepo] code out
    assert_equal 1 $code
    assert_match "*is encrypted (key id *): give --encrypt-key*" $out
    lassign [backup_tool verify --repo $erepo --encrypt-key $other] code out
    assert_equal 1 $code
    assert_match "*wrong key*" $out
    backup_ok verify --repo $erepo --encrypt-key $key
    assert_equal $digest [restore_digest $erepo $::cairn(server) --before-command FLUSHALL --encrypt-key $key]
    # a flipped byte inside the ciphertext: named by verify, refused by restore
    set data [read_bytes $snap]
    set pos [expr {[string length $data] / 2}]
    binary scan [string index $data $pos] cu b
    write_bytes $snap [string replace $data $pos $pos [binary format c [expr {$b ^ 1}]]]
    lassign [backup_tool verify --repo $erepo --encrypt-key $key] code out
    assert_equal 1 $code
    assert_match "*$snap: SHA-256 differs*offset*decryption failed*" $out
    lassign [backup_tool restore --repo $erepo --to [file join $::cairn(tmp) ebad] --encrypt-key $key] code out
    assert_equal 1 $code
    assert {![file exists [file join $::cairn(tmp) ebad appendonlydir appendonly.aof.manifest]]} "nothing restored"
    write_bytes $snap $data
    kill_server $p
}



test "a damaged payload is caught while it arrives: exit 1, nothing stored" {
    if {![file executable /usr/bin/python3]} { skip_test "no python3" }
    set frepo [file join $::cairn(tmp) frepo]
    # a real snapshot with one byte inside a value changed: the structure
    # is sound, the CRC64 is not (the check skims values, never trusting them)
    set s [start_server]
    set sc [client $s]
    r $sc SET k1 value-one
    r $sc HSET h f1 v1 f2 v2
    r $sc SAVE
    set rdb [read_bytes [file join [dict get $s dir] dump.rdb]]
    kill_server $s
    set at [string first value-one $rdb]
    set bad [string replace $rdb $at $at W]
    # truncated inside a key; an unknown type byte with 3 MB after it (the
    # loader stops early while the payload still arrives)
    foreach {hex junk want} [list [binary encode hex "REDIS0010\xfe\x00\x00\x03foo\x05"] 0 "*Short read*" \
                                  [binary encode hex "REDIS0010\xfe\x00"] 3000000 "*Unknown RDB opcode or value type 170*" \
                                  [binary encode hex $bad] 0 "*Wrong RDB checksum*"] {
        set port [::cairn_h::find_port]
        set fake [exec /usr/bin/python3 [file join $::cairn_h::root tests helpers fake_primary.py] $port $hex $junk &]
        wait_for {![catch {close [socket 127.0.0.1 $port]}]} 5000 "the fake primary listening"
        lassign [backup_tool full --server 127.0.0.1:$port --repo $frepo] code out
        catch {exec kill $fake}
        assert_equal 1 $code $out
        assert_match "*the received snapshot does not load: $want" $out
        assert_equal {} [glob -nocomplain -directory [file join $frepo backups] *] "nothing stored"
        assert_equal {} [glob -nocomplain -directory [file join $frepo backups] .tmp*] "no leftovers"
    }
}

# ---- failover under redis-sentinel, source restart ----

set sentinel_bin /usr/bin/redis-sentinel

# A background process (tests/helpers/ack_writer.py) writing w:I through
# the sentinels' current primary; acknowledged I go to `log`.
proc ack_writer_start {log stop sentinels} {
    set ports {}
    foreach s $sentinels { lappend ports [dict get $s port] }
    set script [file join $::cairn_h::root tests helpers ack_writer.py]
    set pid [exec /usr/bin/python3 $script $log $stop mym {*}$ports >& $log.out &]
    lappend ::cairn_h::servers $pid
    return $pid
}

proc ack_writer_stop {pid stop log} {
    write_bytes $stop ""
    assert {[::cairn_h::wait_exit $pid 15000]} "the writer ends"
    ::cairn_h::forget $pid
    set acked [split [string trim [read_bytes $log]] \n]
    assert {[llength $acked] > 0} "the writer had writes acknowledged: [read_bytes $log.out]"
    return $acked
}

# Three redis-sentinels knowing nothing yet; their HOST:PORT list.
proc sentinels_start {} {
    set sentinels {}
    for {set i 0} {$i < 3} {incr i} { lappend sentinels [start_server -binary $::sentinel_bin -conftext ""] }
    return $sentinels
}
proc sentinel_addrs {sentinels} {
    return [join [lmap s $sentinels { set a 127.0.0.1:[dict get $s port] }] ,]
}

# Every sentinel monitors `p` as mym (quorum 2, down after 1 s).
proc sentinels_monitor {sentinels p} {
    foreach s $sentinels {
        set c [client $s]
        r $c SENTINEL MONITOR mym 127.0.0.1 [dict get $p port] 2
        r $c SENTINEL SET mym down-after-milliseconds 1000 failover-timeout 10000
        close_client $c
    }
}

# `stream --sentinel` on mym in the background, its output appended to log.
proc stream_sentinel_start {sentinels repo log} {
    set tool [file join $::cairn_h::root utils cairn-backup]
    set pid [exec env CAIRN_SERVER=$::cairn(server) $tool stream --sentinel [sentinel_addrs $sentinels] \
            --master mym --repo $repo --segment-seconds 0.5 >>& $log &]
    lappend ::cairn_h::servers $pid
    return $pid
}

proc sentinel_field {sc field} { return [dict get [r $sc SENTINEL MASTER mym] $field] }

# How many writes the writer's log holds so far.
proc acked_count {log} {
    if {![file exists $log]} { return 0 }
    return [llength [split [string trim [read_bytes $log]] \n]]
}

# ROLE on a connection of our own (sentinel kills normal clients of the
# nodes it reconfigures).
proc fresh_role {srv} {
    if {[catch {
        set c [client $srv]
        set role [lindex [r $c ROLE] 0]
        close_client $c
    }]} { return "" }
    return $role
}

# Every acknowledged w:I holds I in the server behind `c`.
proc assert_acked_present {c acked what} {
    for {set j 0} {$j < [llength $acked]} {incr j 500} {
        set keys {}
        foreach i [lrange $acked $j [expr {$j + 499}]] { lappend keys w:$i }
        set vals [r $c MGET {*}$keys]
        foreach i [lrange $acked $j [expr {$j + 499}]] v $vals {
            assert_equal $i $v "$what: acknowledged write w:$i"
        }
    }
}

foreach kind {cairn redis} {
    test "stream under redis-sentinel from $kind: the primary killed, the archive goes on from the promoted replica (PSYNC2), no gap, every acknowledged write restored" {
        if {![file executable $::sentinel_bin]} { skip_test "no redis-sentinel" }
        if {$kind eq "redis" && $ref eq ""} { skip_test "no redis-server" }
        set bin [expr {$kind eq "redis" ? $ref : $::cairn(server)}]
        set p [start_server -binary $bin -config {repl-diskless-sync-delay 0}]
        set r1 [start_server -binary $bin -config {repl-diskless-sync-delay 0}]
        set pc [client $p]
        repl_attach [client $r1] $p
        stream_writes $pc pre 30
        # the sentinels start knowing nothing; the tool, asking them, is
        # told of no primary mym and retries until they monitor it, so
        # their first look at the primary already shows the tool attached
        set sentinels [sentinels_start]
        set saddrs [sentinel_addrs $sentinels]
        set frepo [file join $::cairn(tmp) frepo-$kind]
        set log [file join $::cairn(tmp) stream-failover-$kind.log]
        set pid [stream_sentinel_start $sentinels $frepo $log]
        wait_for {[string match "*does not know a primary named mym*" [read_bytes $log]]} 10000 "the tool asking the sentinels"
        sentinels_monitor $sentinels $p
        wait_for {[llength [backup_ids $frepo]] == 1} 10000 "the first backup"
        set sc [client [lindex $sentinels 0]]
        set nrep [expr {$kind eq "redis" ? 2 : 1}]
        wait_for {[sentinel_field $sc num-slaves] >= $nrep && [sentinel_field $sc num-other-sentinels] == 2} 30000 \
            "sentinels see the replicas and each other"
        set wlog [file join $::cairn(tmp) acked-$kind.log]
        set stop [file join $::cairn(tmp) acked-$kind.stop]
        set wpid [ack_writer_start $wlog $stop $sentinels]
        wait_for {[acked_count $wlog] > 200} 20000 "writes acknowledged before the failover"
        # sentinel knows the real replica only: on cairn the tool is in no
        # INFO line; on Redis it is listed with port 0, unreachable, so it
        # is flagged down and never a candidate
        set replicas [r $sc SENTINEL REPLICAS mym]
        set ports {}
        foreach rep $replicas { lappend ports [dict get $rep port] }
        if {$kind eq "cairn"} {
            assert_equal [list [dict get $r1 port]] $ports "sentinel's replicas"
        } else {
            assert_equal [lsort -integer [list 0 [dict get $r1 port]]] [lsort -integer $ports] "sentinel's replicas"
            wait_for {[string match "*disconnected*" [dict get [lindex [lmap rep [r $sc SENTINEL REPLICAS mym] {
                if {[dict get $rep port] == 0} { set rep } else { continue }
            }] 0] flags]]} 10000 "the tool's entry flagged disconnected"
        }

        kill_server $p
        set oldport [dict get $p port]
        wait_for {[lindex [r $sc SENTINEL GET-MASTER-ADDR-BY-NAME mym] 1] != $oldport} 40000 "a new primary"
        assert_equal [dict get $r1 port] [lindex [r $sc SENTINEL GET-MASTER-ADDR-BY-NAME mym] 1] "the real replica promoted"
        wait_for {[fresh_role $r1] eq "master"} 30000 "the promoted replica is a primary"
        set n0 [acked_count $wlog]
        wait_for {[acked_count $wlog] > $n0 + 200} 30000 "writes acknowledged after the failover"
        set acked [ack_writer_stop $wpid $stop $wlog]
        set nc [client $r1]
        stream_caught_up $frepo $nc
        set want [r $nc DEBUG DIGEST]
        stream_stop $pid
        set text [read_bytes $log]
        set newp 127.0.0.1:[dict get $r1 port]
        assert_match "*sentinel: the primary of mym is $newp*" $text
        set out [backup_ok list --repo $frepo]
        assert {![string match *GAP* $out]} "no gap inside a timeline: $out"
        if {[llength [backup_ids $frepo]] == 1} {
            assert_match "*partial resync with $newp from offset*" $text
            assert {![string match "*not restorable*" $out]} "no period without a restore point: $out"
        } else {
            # The kill can land between the primary's writes to its two
            # links: then the tool holds stream bytes (an unacknowledged
            # write) the promoted replica never got, no PSYNC can continue
            # past them, and a new full backup is the only correct answer.
            # Allowed only when that is what happened.
            assert_equal 2 [llength [backup_ids $frepo]] "one new backup at most: $text"
            lassign [backup_tool list --repo $frepo --json] code json
            set old_end [lindex [regexp -all -inline {"stream_end":(\d+)} $json] 1]
            set second [info_field $nc second_repl_offset replication]
            assert {$old_end >= $second} "a new backup although the promoted replica had all the tool's $old_end bytes (its second ID reaches [expr {$second - 1}]): $text"
            assert_match "*partial resync impossible (the source answered +FULLRESYNC*holds that history only up to offset*is not on it (writes lost in the failover)*" $text
            assert_match "*diverged: taken after a failover; this source holds backup *" $out
        }
        backup_ok verify --repo $frepo
        # full asks the sentinels too (the first address is a dead one)
        set out [backup_ok full --sentinel 127.0.0.1:[::cairn_h::find_port],$saddrs --master mym \
                --repo [file join $::cairn(tmp) frepo-full-$kind]]
        assert_match "*: 127.0.0.1:[dict get $r1 port] at *" $out
        # the end of the archive is the promoted primary's state at its offset
        set s [start_server]
        stop_server $s
        set out [backup_ok restore --repo $frepo --to [dict get $s dir] --force]
        # one backup: its snapshot and the stream (an AOF directory); a new
        # backup taken after the failover may have no stream after it yet
        if {[llength [backup_ids $frepo]] == 1} { assert_match "*appendonlydir*" $out }
        dict set s config [list appendonly [expr {[string match *appendonlydir* $out] ? "yes" : "no"}]]
        set s [restart_server $s]
        set rc [client $s]
        assert_equal $want [r $rc DEBUG DIGEST] "the restored end against the new primary"
        assert_acked_present $rc $acked "restored"
        kill_server $s
        foreach s $sentinels { kill_server $s }
        kill_server $r1
    }
}

# A cairn primary and its replica: {p r1 pc rc} (servers, clients).
proc primary_and_replica {} {
    set p [start_server -config {repl-diskless-sync-delay 0}]
    set r1 [start_server -config {repl-diskless-sync-delay 0}]
    set rc [client $r1]
    repl_attach $rc $p
    return [list $p $r1 [client $p] $rc]
}

# Two backups in `repo`, the second taken because its source (promoted,
# behind `rc`) lacked the first's archived tail: the log says where the
# histories part, list (text and JSON) and the manifest name it, and the
# old timeline's end (which offsets of the new one overlap) restores by
# --backup OLD --offset END to `dlost`, the old primary's last state.
proc assert_diverged {repo log rc dlost} {
    lassign [backup_ids $repo] old new
    assert_equal 2 [llength [backup_ids $repo]] "two backups"
    lassign [backup_tool list --repo $repo --json] code json
    set old_end [lindex [regexp -all -inline {"stream_end":(\d+)} $json] 1]
    set shared [expr {[info_field $rc second_repl_offset replication] - 1}]
    assert {$old_end > $shared} "the tool held bytes past the promoted replica's history ($old_end > $shared)"
    assert_match "*partial resync impossible (*the source holds that history only up to offset $shared: the archived tail ($shared, $old_end\] is not on it (writes lost in the failover)*): taking a new full backup*" [read_bytes $log]
    set out [backup_ok list --repo $repo]
    assert_match "*backup $new *diverged: taken after a failover; this source holds backup $old's history only up to offset $shared, its archived tail ($shared, $old_end\] is not on it*" $out
    assert_equal "$old $shared $old_end" [manifest_field $repo $new diverged-from]
    assert_match "*\"diverged_from\":\"$old\",\"diverged_at\":$shared,\"diverged_end\":$old_end*" $json
    assert_equal $dlost [restore_digest $repo $::cairn(server) --backup $old --offset $old_end] "the lost write by --backup OLD --offset END"
    backup_ok verify --repo $repo
}

test "stream: the tool ahead of the replica promoted next: a new backup, the writes only the old primary had restorable from the old timeline" {
    lassign [primary_and_replica] p r1 pc rc
    stream_writes $pc common 30
    set arepo [file join $::cairn(tmp) arepo]
    set log [file join $::cairn(tmp) stream-ahead.log]
    set pid [stream_start $p $arepo $log]
    wait_for {[llength [backup_ids $arepo]] == 1} 10000 "the first backup"
    stream_writes $pc more 30
    repl_wait_caught_up $pc $rc
    # the replica is promoted; the old primary takes writes it never gets
    r $rc REPLICAOF NO ONE
    r $pc SET lost-in-failover 1
    stream_caught_up $arepo $pc
    set dlost [r $pc DEBUG DIGEST]
    after 200
    set t [format %.3f [expr {[clock milliseconds] / 1000.0}]]
    stream_stop $pid
    r $rc SET after-promotion 1
    set pid [stream_start $r1 $arepo $log]
    wait_for {[llength [backup_ids $arepo]] == 2} 10000 "a new backup from the promoted replica"
    stream_caught_up $arepo $rc
    stream_stop $pid
    assert_diverged $arepo $log $rc $dlost
    assert_equal $dlost [restore_digest $arepo $::cairn(server) --at $t] "the old timeline holds the lost write"
    assert_equal [r $rc DEBUG DIGEST] [restore_digest $arepo $::cairn(server)] "the end: the promoted replica's data"
    kill_server $p
    kill_server $r1
}

# A real failover that loses a write: the replica's link is cut and kept
# down (a wrong masterauth makes its reconnects fail) while the primary
# takes a write the tool archives, then the primary dies and the sentinels
# promote the replica. The tool asks them, finds the new primary behind its
# archive, takes a new backup and says why; the lost write stays restorable.
test "stream under redis-sentinel: the primary killed while the replica lagged, the tool ahead of the promoted replica: a new backup, the lost write restorable from the old timeline" {
    if {![file executable $::sentinel_bin]} { skip_test "no redis-sentinel" }
    lassign [primary_and_replica] p r1 pc rc
    stream_writes $pc pre 30
    set sentinels [sentinels_start]
    sentinels_monitor $sentinels $p
    set srepo [file join $::cairn(tmp) srepo-ahead]
    set log [file join $::cairn(tmp) stream-sentinel-ahead.log]
    set pid [stream_sentinel_start $sentinels $srepo $log]
    wait_for {[llength [backup_ids $srepo]] == 1} 10000 "the first backup"
    set sc [client [lindex $sentinels 0]]
    wait_for {[sentinel_field $sc num-slaves] >= 1 && [sentinel_field $sc num-other-sentinels] == 2} 30000 \
        "sentinels see the replica and each other"
    stream_writes $pc common 20
    repl_wait_caught_up $pc $rc
    r $rc CONFIG SET masterauth not-the-password
    r $rc CLIENT KILL TYPE master
    wait_for {[info_field $rc master_link_status replication] eq "down"} 10000 "the replica's link down"
    r $pc SET lost-in-failover 1
    stream_caught_up $srepo $pc
    set dlost [r $pc DEBUG DIGEST]
    kill_server $p
    set oldport [dict get $p port]
    wait_for {[lindex [r $sc SENTINEL GET-MASTER-ADDR-BY-NAME mym] 1] != $oldport} 40000 "a new primary"
    wait_for {[fresh_role $r1] eq "master"} 30000 "the replica promoted"
    set nc [client $r1]
    wait_for {[llength [backup_ids $srepo]] == 2} 20000 "a new backup from the promoted replica"
    r $nc SET after-promotion 1
    stream_caught_up $srepo $nc
    set want [r $nc DEBUG DIGEST]
    stream_stop $pid
    assert_match "*sentinel: the primary of mym is 127.0.0.1:[dict get $r1 port]*" [read_bytes $log]
    assert_diverged $srepo $log $nc $dlost
    assert_equal $want [restore_digest $srepo $::cairn(server)] "the end: the promoted replica's data"
    foreach s $sentinels { kill_server $s }
    kill_server $r1
}

# A snapshot written at shutdown carries the replication ID and offset, so
# the restarted source takes the tool back partially. An AOF does not (as
# in Redis 7.0: its commands are not the stream's bytes): the tool takes a
# new full backup, says why, and both timelines restore.
foreach persist {rdb aof} {
    test "stream: the source restarted from its own $persist: [expr {$persist eq "rdb" ? "partial resync, no gap" : "a new full backup, logged"}]" {
        set cfg [expr {$persist eq "aof" ? {appendonly yes appendfsync always} : {}}]
        set p [start_server -config [list repl-diskless-sync-delay 0 {*}$cfg]]
        set pc [client $p]
        stream_writes $pc before 40
        set rrepo [file join $::cairn(tmp) rrepo-$persist]
        set log [file join $::cairn(tmp) stream-restart-$persist.log]
        set pid [stream_start $p $rrepo $log]
        wait_for {[llength [backup_ids $rrepo]] == 1} 10000 "the first backup"
        stream_writes $pc middle 40
        stream_caught_up $rrepo $pc
        set d0 [r $pc DEBUG DIGEST]
        after 200
        set t0 [format %.3f [expr {[clock milliseconds] / 1000.0}]]
        set before [info_field $pc master_repl_offset replication]
        catch {r $pc SHUTDOWN [expr {$persist eq "rdb" ? "SAVE" : "NOSAVE"}]}
        wait_for {![server_alive $p]} 10000 "the source stopped"
        set p [restart_server $p]
        set pc [client $p]
        assert_equal $d0 [r $pc DEBUG DIGEST] "the source restarted with its data"
        stream_writes $pc after 40
        if {$persist eq "rdb"} {
            assert {[info_field $pc master_repl_offset replication] >= $before} "the offset survives the restart"
            wait_for {[string match "*partial resync with*" [read_bytes $log]]} 15000 "the tool reattached"
        } else {
            wait_for {[llength [backup_ids $rrepo]] == 2} 15000 "a new full backup"
            assert_match "*partial resync impossible (the source answered +FULLRESYNC*" [read_bytes $log]
        }
        stream_caught_up $rrepo $pc
        stream_stop $pid
        set text [read_bytes $log]
        if {$persist eq "rdb"} {
            assert_equal 1 [llength [backup_ids $rrepo]] "no new full backup: $text"
            set out [backup_ok list --repo $rrepo]
            assert {![string match *GAP* $out] && ![string match "*not restorable*" $out]} "no gap: $out"
        }
        assert_equal $d0 [restore_digest $rrepo $::cairn(server) --at $t0] "before the restart"
        assert_equal [r $pc DEBUG DIGEST] [restore_digest $rrepo $::cairn(server)] "the end"
        kill_server $p
    }
}

# ---- TLS ----

foreach kind {cairn redis} {
    test "full and stream over TLS from $kind: verify, restore equal; an untrusted certificate refused" {
        if {$kind eq "redis" && $ref eq ""} { skip_test "no redis-server" }
        if {![info exists ::tls_certs]} { source [file join $::cairn_h::root tests helpers tls.tcl] }
        set bin [expr {$kind eq "redis" ? $ref : $::cairn(server)}]
        set p [start_tls_server -binary $bin repl-diskless-sync-delay 0 tls-replication yes]
        set pc [client $p]
        stream_writes $pc tls 40
        r $pc DEBUG POPULATE 500 tlspop 20
        set digest [r $pc DEBUG DIGEST]
        set tp [dict get $p tls_port]
        set tls [list --tls --cacert [cert ca.crt] --cert [cert client.crt] --key [cert client.key]]
        set trepo [file join $::cairn(tmp) trepo-$kind]
        set out [backup_ok full --server 127.0.0.1:$tp --repo $trepo {*}$tls]
        assert_match "*full sync from*" $out
        set id [lindex [backup_ids $trepo] end]
        assert_equal [total_keys $pc] [manifest_field $trepo $id keys] "manifest key count"
        backup_ok verify --repo $trepo $id
        assert_equal $digest [restore_digest $trepo $::cairn(server) --backup $id]
        # the system's CAs do not know the test CA: refused, and said why
        lassign [backup_tool full --server 127.0.0.1:$tp --repo $trepo --tls \
                --cert [cert client.crt] --key [cert client.key]] code out
        assert_equal 1 $code
        assert_match "*TLS handshake with 127.0.0.1:$tp failed: the server's certificate is not trusted*" $out
        # a plain client on the TLS port is no TLS either way
        lassign [backup_tool full --server 127.0.0.1:$tp --repo $trepo --timeout 3] code out
        assert_equal 1 $code
        # --insecure skips the check
        backup_ok full --server 127.0.0.1:$tp --repo [file join $::cairn(tmp) trepo-ins-$kind] --tls --insecure \
            --cert [cert client.crt] --key [cert client.key]
        # stream: attached over TLS, writes archived, restored to the end
        set srepo [file join $::cairn(tmp) tsrepo-$kind]
        set ps [dict replace $p port $tp]
        set pid [stream_start $ps $srepo [file join $::cairn(tmp) stream-tls-$kind.log] {*}$tls]
        wait_for {[llength [backup_ids $srepo]] == 1} 10000 "the first backup over TLS"
        stream_writes $pc tls2 60
        set d2 [r $pc DEBUG DIGEST]
        stream_caught_up $srepo $pc
        stream_stop $pid
        backup_ok verify --repo $srepo
        assert_equal $d2 [restore_digest $srepo $::cairn(server)] "streamed over TLS, restored"
        if {$ref ne ""} { assert_equal $d2 [restore_digest $srepo $ref] "into redis-server" }
        # restore --to-server into the TLS port of a running server of the same kind
        set t [start_tls_server -binary $bin]
        set ttp [dict get $t tls_port]
        lassign [backup_tool restore --repo $srepo --to-server 127.0.0.1:$ttp] code out
        assert_equal 1 $code "plain TCP to a TLS port: $out"
        set out [backup_ok restore --repo $srepo --to-server 127.0.0.1:$ttp {*}$tls]
        assert_match "*loaded * keys and * bytes of commands*" $out
        assert_equal $d2 [r [client $t] DEBUG DIGEST] "--to-server over TLS"
        kill_server $t
        kill_server $p
    }
}

finish
