# repl_tls.tcl -- replication over TLS (tls-replication yes on the replica,
# the primary's tls-port): this server to itself with disk and diskless
# sync (the diskless one also loaded straight from the TLS socket), the
# stream after it, a killed link continuing partially; Debian's
# redis-server 7.0.15 as the replica of this server and as its primary,
# datasets compared key by key; a primary whose certificate the replica
# does not trust (a clear log line, retries, no crash, and a CONFIG SET of
# the CA that lets the link come up); junk on the link: a primary that does
# not speak TLS, single bytes flipped inside the TLS stream in either
# direction, and a TLS replica that sends garbage after PSYNC.
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers rdbdata.tcl]
source [file join [file dirname [info script]] .. helpers repl.tcl]
source [file join [file dirname [info script]] .. helpers tls.tcl]

set ref $::cairn(reference)
if {$ref eq "" && [file executable /usr/bin/redis-server]} { set ref /usr/bin/redis-server }

# REPLICAOF the primary's tls-port.
proc tls_attach {rc msrv {ms 20000}} {
    r $rc REPLICAOF 127.0.0.1 [dict get $msrv tls_port]
    repl_wait_link $rc $ms
}

# The primary's view of its replica's connection: the port it arrived on
# (the tls-port proves the link is TLS, that port speaks nothing else).
proc replica_local_port {mc} {
    set line [lsearch -inline [split [r $mc CLIENT LIST] \n] "*flags=S*"]
    if {![regexp {laddr=[^ ]*:(\d+) } $line -> port]} { return "" }
    return $port
}

proc log_count {srv pattern} {
    return [regexp -all -line -- $pattern [log_tail $srv 100000]]
}

# Writes through the stream: every type, a transaction, another db.
proc stream_writes {mc tag} {
    for {set i 0} {$i < 80} {incr i} {
        r $mc SET $tag:s:$i [string repeat x [expr {$i * 7}]]
        r $mc RPUSH $tag:l $i
        r $mc HSET $tag:h f$i $i
        r $mc ZADD $tag:z $i m$i
    }
    r $mc MULTI
    r $mc INCRBY $tag:n 5
    r $mc SADD $tag:set a b c
    r $mc EXEC
    r $mc SELECT 5
    r $mc SET $tag:db5 v PX 5000000
    r $mc SELECT 0
}

# Compare what the stream may re-encode: type, expire time and content.
proc same_dataset {mc rc} {
    assert_equal [r $mc DEBUG DIGEST] [r $rc DEBUG DIGEST] "DEBUG DIGEST"
    set a [rdbdata_meta_all $mc]
    set b [rdbdata_meta_all $rc]
    assert_equal [dict size $a] [dict size $b] "key count"
    dict for {k v} $a {
        assert_equal [lreplace $v 1 1] [lreplace [dict get $b $k] 1 1] "key $k"
    }
}

# tls_sync PBIN RBIN MODE ?replica directives?: a primary (binary PBIN)
# and a tls-replication replica (RBIN) linked over the primary's tls-port;
# a full sync of every type under MODE (disk or diskless), the stream
# after it, then CLIENT KILL TYPE master on the replica and a partial
# resync over TLS again; datasets compared after each. Returns the pair
# {primary replica}, both still running, for extra checks.
proc tls_sync {pbin rbin mode args} {
    set diskless [expr {$mode eq "diskless" ? "yes" : "no"}]
    # No PINGs during the test: bytes left decrypted inside OpenSSL (past a
    # handshake reply, say) must be served by themselves, not when the
    # next PING arrives.
    set p [start_tls_server -binary $pbin repl-diskless-sync $diskless repl-diskless-sync-delay 0 \
            repl-ping-replica-period 60]
    set s [start_tls_server -binary $rbin tls-replication yes {*}$args]
    set pc [client $p]
    set sc [client $s]
    rdbdata_populate $pc
    r $pc DEBUG POPULATE 500 pop 1000
    tls_attach $sc $p
    assert_equal [dict get $p tls_port] [replica_local_port $pc] "the replica came in on the tls-port"
    stream_writes $pc a
    repl_wait_caught_up $pc $sc
    same_dataset $pc $sc
    set ok [repl_stat $pc sync_partial_ok]
    set full [repl_stat $pc sync_full]
    r $sc CLIENT KILL TYPE master
    stream_writes $pc b
    repl_wait_link $sc
    repl_wait_caught_up $pc $sc
    assert_equal [expr {$ok + 1}] [repl_stat $pc sync_partial_ok] "partial resync"
    assert_equal $full [repl_stat $pc sync_full] "no second full sync"
    same_dataset $pc $sc
    close_client $pc
    close_client $sc
    return [list $p $s]
}

foreach mode {disk diskless} {
    test "This server to itself over TLS ($mode sync, stream, partial resync after CLIENT KILL)" {
        # Diskless: the replica parses the payload from the TLS socket.
        set load [expr {$mode eq "diskless" ? "swapdb" : "disabled"}]
        lassign [tls_sync $::cairn(server) $::cairn(server) $mode repl-diskless-load $load] p s
        set pc [client $p]
        # It announces its own tls-port, as Redis does.
        assert_match "*slave0:ip=127.0.0.1,port=[dict get $s tls_port],*" [r $pc INFO replication]
        assert_equal 1 [r $pc WAIT 1 5000]
        if {$mode eq "diskless"} {
            assert_match "*Loading DB in memory from the socket*" [log_tail $s 200]
        }
        kill_server $p
        kill_server $s
    }
}

foreach mode {disk diskless} {
    test "redis-server as replica of this server over TLS ($mode sync)" {
        if {$ref eq ""} { skip_test "no redis-server" }
        lassign [tls_sync $::cairn(server) $ref $mode] p s
        kill_server $p
        kill_server $s
    }

    test "This server as replica of redis-server over TLS ($mode sync)" {
        if {$ref eq ""} { skip_test "no redis-server" }
        lassign [tls_sync $ref $::cairn(server) $mode] p s
        kill_server $p
        kill_server $s
    }
}

test "A primary whose certificate is not trusted: a clear log line, retries, no crash" {
    set p [start_tls_server]
    # The replica trusts only another CA.
    set s [start_tls_server tls-replication yes tls-ca-cert-file [cert other-ca.crt]]
    set pc [client $p]
    set sc [client $s]
    r $pc SET k v
    r $sc REPLICAOF 127.0.0.1 [dict get $p tls_port]
    set pat {Error condition on socket for SYNC: TLS handshake with 127\.0\.0\.1:\d+ failed: .*certificate verify failed}
    wait_for {[log_count $s $pat] >= 3} 10000 "three failed attempts logged"
    assert_equal down [info_field $sc master_link_status replication]
    assert_equal PONG [r $sc PING]
    assert_equal PONG [r $pc PING]
    assert_equal 0 [llength [lsearch -all [split [r $pc CLIENT LIST] \n] "*flags=S*"]]
    # Trusting the right CA (a reload by CONFIG SET) lets the next attempt in.
    r $sc CONFIG SET tls-ca-cert-file [cert ca.crt]
    repl_wait_link $sc
    assert_equal v [r $sc GET k]
    assert_equal "" [sanitizer_report $s]
    kill_server $p
    kill_server $s
}

proc random_bytes {n} {
    set b ""
    for {set i 0} {$i < $n} {incr i} { append b [binary format c [expr {int(rand() * 256)}]] }
    return $b
}

proc junk_primary_accept {s addr port} {
    fconfigure $s -translation binary
    catch {
        puts -nonewline $s "-ERR not a TLS server\r\n[random_bytes 2000]"
        close $s
    }
}

# This process' event loop (the junk primary's accepts) runs while
# wait_for polls a condition that calls this.
proc serve_events {} {
    update
    return 1
}

test "Junk on the TLS replication link: a plaintext primary, flipped bytes both ways, a garbage replica" {
    set p [start_tls_server repl-diskless-sync-delay 0 repl-backlog-size 10mb]
    set s [start_tls_server tls-replication yes]
    set pc [client $p]
    set sc [client $s]
    r $pc DEBUG POPULATE 500 pop 50
    # A "primary" that does not speak TLS: it answers the ClientHello with
    # an error line and random bytes.
    set l [socket -server junk_primary_accept -myaddr 127.0.0.1 0]
    r $sc REPLICAOF 127.0.0.1 [lindex [fconfigure $l -sockname] 2]
    wait_for {[serve_events] && [log_count $s {Error condition on socket for SYNC: TLS handshake .* failed}] >= 2} \
        10000 "plaintext primary refused"
    close $l
    assert_equal PONG [r $sc PING]
    # Through a proxy that flips single bytes inside the TLS records.
    set px [faultproxy_start [dict create host 127.0.0.1 port [dict get $p tls_port]]]
    r $sc REPLICAOF 127.0.0.1 [faultproxy_port $px]
    repl_wait_link $sc
    repl_wait_caught_up $pc $sc
    set full [repl_stat $pc sync_full]
    # primary -> replica: the replica's TLS layer refuses the record. The
    # link is idle (caught up), so byte 8 from here is inside the next
    # record's encrypted body, past its 5-byte header: an integrity
    # failure at once, never a length that makes the reader wait.
    faultproxy $px corrupt down 8
    stream_writes $pc a
    wait_for {[log_count $s {Connection with master lost}] >= 1} 10000 "replica dropped the corrupted link"
    repl_wait_link $sc
    repl_wait_caught_up $pc $sc
    same_dataset $pc $sc
    # replica -> primary (its REPLCONF ACKs): the primary drops the replica
    set lost [log_count $p {Connection with replica .* lost}]
    faultproxy $px corrupt up 8
    wait_for {[log_count $p {Connection with replica .* lost}] > $lost} 10000 "primary dropped the corrupted link"
    stream_writes $pc b
    repl_wait_link $sc
    repl_wait_caught_up $pc $sc
    same_dataset $pc $sc
    # Both cuts were continued from the backlog.
    assert_equal $full [repl_stat $pc sync_full]
    faultproxy_stop $px
    tls_attach $sc $p
    # A TLS "replica" that asks for a sync, then sends garbage.
    set t [client $p -tls [tls_opts] -timeout 5000]
    send_raw $t [resp PSYNC ? -1]
    send_raw $t "*1\r\n\$abc\r\n[random_bytes 4096]"
    assert_equal 1 [connection_closed $t 5000]
    close_client $t
    assert_equal PONG [r $pc PING]
    r $pc SET after junk
    repl_wait_caught_up $pc $sc
    assert_equal junk [r $sc GET after]
    assert_equal "" [sanitizer_report $p]
    assert_equal "" [sanitizer_report $s]
    kill_server $p
    kill_server $s
}

finish
