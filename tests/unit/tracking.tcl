# tracking.tcl -- client-side caching (CLIENT TRACKING, CACHING, GETREDIR,
# TRACKINGINFO) with RESP3 pushes and RESP2 redirection, and CLIENT
# PAUSE/UNPAUSE.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
set writer [client $srv]

test "RESP3 tracking: a read key is invalidated once when another client writes it" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on
    r $writer SET tk1 v
    r $t GET tk1
    r $writer SET tk1 v2
    assert_equal {invalidate tk1} [read_push $t]
    # Forgotten after one invalidation until read again.
    r $writer SET tk1 v3
    r $t GET tk1
    r $writer DEL tk1
    assert_equal {invalidate tk1} [read_push $t]
    close_client $t
}

test "own writes invalidate after the reply, unless NOLOOP" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on
    r $t GET own
    assert_equal "+OK\r\n" [rraw $t SET own 1]
    assert_equal {invalidate own} [read_push $t]
    r $t CLIENT TRACKING on NOLOOP
    r $t GET own
    # No push for our own write; the key is forgotten all the same.
    assert_equal "+OK\r\n" [rraw $t SET own 2]
    r $t GET own
    r $writer SET own 3
    assert_equal {invalidate own} [read_push $t]
    close_client $t
}

test "scripts: a read remembers the declared keys; NOLOOP spares the caller's script writes" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on
    # a script that only writes remembers nothing
    r $t EVAL "redis.call('set', 'sk3', 'x')" 2 sk1 sk2
    r $writer MSET sk1 1 sk2 1
    # one read: the declared keys are remembered (not the key read)
    r $t EVAL "redis.call('get', 'sk3')" 2 sk1 sk2
    r $writer SET sk3 y
    r $writer MSET sk2 2 sk1 2
    assert_equal {invalidate sk2} [read_push $t]
    assert_equal {invalidate sk1} [read_push $t]
    # EVAL_RO likewise: only through what the script reads
    r $t EVAL_RO "redis.call('ping')" 2 sk1 sk2
    r $writer MSET sk2 3 sk1 3
    r $t EVAL_RO "redis.call('get', 'sk1')" 2 sk1 sk2
    r $writer MSET sk2 4 sk1 4
    assert_equal {invalidate sk2} [read_push $t]
    assert_equal {invalidate sk1} [read_push $t]
    # NOLOOP: a write by the caller's own script sends it no invalidation
    r $t CLIENT TRACKING on NOLOOP
    r $t GET sk1
    assert_equal "+OK\r\n" [rraw $t EVAL {return redis.call('set', KEYS[1], '5')} 1 sk1]
    assert_equal "+PONG\r\n" [rraw $t PING]
    r $t CLIENT TRACKING off
    close_client $t
}

test "FLUSHALL invalidates everything with a null key list" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on
    r $t GET fa
    r $writer FLUSHALL
    assert_equal "invalidate {}" [read_push $t]
    close_client $t
}

test "expiry invalidates tracked keys" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on
    r $writer SET exp v PX 500 ;# GET must still find it: room for a stall
    r $t GET exp
    assert_equal {invalidate exp} [read_push $t]
    close_client $t
}

test "RESP2 REDIRECT delivers invalidations on __redis__:invalidate" {
    set sub [client $srv]
    set subid [r $sub CLIENT ID]
    send_cmd $sub SUBSCRIBE __redis__:invalidate
    read_reply $sub
    set t [client $srv]
    r $t CLIENT TRACKING on REDIRECT $subid
    assert_equal $subid [r $t CLIENT GETREDIR]
    r $t GET rk
    r $writer SET rk 1
    assert_equal {message __redis__:invalidate rk} [read_reply $sub]
    assert_error "ERR The client ID you want redirect to does not exist" {r $t CLIENT TRACKING on REDIRECT 999999}
    close_client $t
    close_client $sub
}

test "BCAST prefixes get every matching change, batched" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on BCAST PREFIX user: PREFIX cfg:
    r $writer SET user:1 a
    assert_equal {invalidate user:1} [read_push $t]
    r $writer SET other:1 a
    r $writer SET cfg:x a
    assert_equal {invalidate cfg:x} [read_push $t]
    set info [r $t CLIENT TRACKINGINFO]
    assert_equal {on bcast} [dict get $info flags]
    assert_equal {cfg: user:} [dict get $info prefixes]
    assert_error "ERR Prefix 'user:a' overlaps with an existing prefix 'user:'. Prefixes for a single client must not overlap." {r $t CLIENT TRACKING on BCAST PREFIX user:a}
    close_client $t
}

test "BCAST NOLOOP: a key changed twice, last by ourselves, is not sent back" {
    # The second change in one event loop leaked the key's copy and reset
    # the last writer, so the NOLOOP client got its own change back.
    set s [start_server]
    set t [client $s -resp 3]
    set w [client $s]
    r $t CLIENT TRACKING on BCAST NOLOOP
    send_raw $t "[resp SET nl 1][resp SET nl 2][resp PING]"
    assert_equal {OK OK PONG} [list [read_reply $t] [read_reply $t] [read_reply $t]]
    r $w SET nl 3
    assert_equal {invalidate nl} [read_push $t]
    r $t SET nl 4
    r $t PING
    assert_equal {} $::cairn_h::push($t)
    close_client $t
    close_client $w
    stop_server $s
    assert_equal "" [sanitizer_report $s]
}

test "OPTIN tracks only after CLIENT CACHING yes" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on OPTIN
    r $t GET notcached
    r $t CLIENT CACHING yes
    r $t GET cached
    r $writer SET notcached 1
    r $writer SET cached 1
    assert_equal {invalidate cached} [read_push $t]
    close_client $t
}

test "tracking errors and TRACKINGINFO off" {
    assert_error "ERR PREFIX option requires BCAST mode to be enabled" {r $c CLIENT TRACKING on PREFIX a}
    assert_error "ERR You can't specify both OPTIN mode and OPTOUT mode" {r $c CLIENT TRACKING on OPTIN OPTOUT}
    assert_error "ERR OPTIN and OPTOUT are not compatible with BCAST" {r $c CLIENT TRACKING on BCAST OPTIN}
    assert_error "ERR CLIENT CACHING can be called only*" {r $c CLIENT CACHING yes}
    assert_equal -1 [r $c CLIENT GETREDIR]
    assert_equal {flags off redirect -1 prefixes {}} [r $c CLIENT TRACKINGINFO]
}

test "BCAST without PREFIX gets every change (the empty prefix)" {
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on BCAST
    r $writer MSET b3{x} 1 b1{x} 2 b2{x} 3
    assert_equal {invalidate {b1{x} b2{x} b3{x}}} [read_push $t]
    assert_equal {{}} [dict get [r $t CLIENT TRACKINGINFO] prefixes]
    close_client $t
}

test "a served BLMOVE's own invalidation follows its reply" {
    set t [client $srv -resp 3]
    r $writer DEL bsrc bdst
    r $writer RPUSH bdst x
    r $t CLIENT TRACKING on
    r $t LRANGE bdst 0 -1
    send_cmd $t BLMOVE bsrc bdst LEFT LEFT 0
    wait_for {[info_field $writer blocked_clients] == 1}
    r $writer RPUSH bsrc moved
    assert_equal moved [read_reply $t]
    assert_equal {invalidate bdst} [read_push $t]
    close_client $t
}

test "tracking_total_items counts (key, reader) pairs; FLUSHALL empties the table" {
    r $writer FLUSHALL
    set t1 [client $srv -resp 3]
    set t2 [client $srv -resp 3]
    r $t1 CLIENT TRACKING on
    r $t2 CLIENT TRACKING on
    r $t1 MGET i1 i2
    r $t2 GET i1
    assert_equal 2 [info_field $writer tracking_total_keys]
    assert_equal 3 [info_field $writer tracking_total_items]
    # Readers that turned tracking off stay in the table until a flush,
    # which empties it even with no tracking client left.
    r $t1 CLIENT TRACKING off
    r $t2 CLIENT TRACKING off
    assert_equal 0 [info_field $writer tracking_clients]
    assert_equal 3 [info_field $writer tracking_total_items]
    r $writer FLUSHALL
    assert_equal 0 [info_field $writer tracking_total_keys]
    assert_equal 0 [info_field $writer tracking_total_items]
    # So a later reader is not told about keys it never read.
    set sub [client $srv]
    set subid [r $sub CLIENT ID]
    send_cmd $sub SUBSCRIBE __redis__:invalidate
    read_reply $sub
    r $t1 CLIENT TRACKING on REDIRECT $subid
    r $writer SET i1 changed
    r $t1 GET i2
    r $writer SET i2 changed
    assert_equal {message __redis__:invalidate i2} [read_reply $sub]
    foreach x [list $t1 $t2 $sub] { close_client $x }
}

test "tracking-table-max-keys: lowering it invalidates keys down to the limit" {
    r $writer FLUSHALL
    set t [client $srv -resp 3]
    r $t CLIENT TRACKING on
    for {set i 0} {$i < 300} {incr i} { lappend keys lim$i }
    r $t MGET {*}$keys
    assert_equal 300 [info_field $writer tracking_total_keys]
    r $writer CONFIG SET tracking-table-max-keys 10
    # More than one call's worth of work (100 keys): it completes anyway,
    # on an idle server, and drops exactly the excess.
    set got {}
    while {[llength $got] < 290} {
        set push [read_push $t]
        assert_equal invalidate [lindex $push 0]
        lappend got {*}[lindex $push 1]
    }
    assert_equal 290 [llength [lsort -unique $got]]
    assert_equal 10 [info_field $writer tracking_total_keys]
    r $writer CONFIG SET tracking-table-max-keys 1000000
    close_client $t
}

test "DEBUG PAUSE-CRON stops the cron (no active expiry)" {
    r $c SELECT 6
    r $c FLUSHDB
    r $c DEBUG PAUSE-CRON 1
    r $c SET pc v PX 10
    after 300
    assert_equal 1 [r $c DBSIZE]
    r $c DEBUG PAUSE-CRON 0
    wait_for {[r $c DBSIZE] == 0}
    r $c SELECT 0
}

test "CLIENT PAUSE WRITE holds writes but serves reads, then runs them" {
    r $c SET pw 1
    r $c CLIENT PAUSE 100000 WRITE
    set w [client $srv]
    send_cmd $w INCR pw
    after 100
    assert_equal 1 [r $c GET pw]
    r $c CLIENT UNPAUSE
    assert_equal 2 [read_reply $w]
    assert_equal 2 [r $c GET pw]
    close_client $w
}

test "CLIENT PAUSE WRITE holds scripts that may write, not no-writes ones" {
    set w1 [client $srv]
    set w2 [client $srv]
    set w3 [client $srv]
    # queued before the pause (queueing it would be held too)
    r $w3 MULTI
    r $w3 EVAL "#!lua\nreturn 3" 0
    r $c CLIENT PAUSE 100000 WRITE
    send_cmd $w1 EVAL "return 1" 0
    send_cmd $w2 EVAL "#!lua\nreturn 2" 0
    send_cmd $w3 EXEC
    # a script declaring no-writes runs, so does EVAL_RO
    assert_equal 4 [r $c EVAL "#!lua flags=no-writes\nreturn 4" 0]
    assert_equal 5 [r $c EVAL_RO "return 5" 0]
    # PUBLISH is a write to a read-only script
    assert_error "ERR Write commands are not allowed from read-only scripts*" \
        {r $c EVAL_RO "return redis.call('publish', 'ch', 'm')" 0}
    assert_error "ERR Write commands are not allowed from read-only scripts*" \
        {r $c EVAL "#!lua flags=no-writes\nreturn redis.call('publish', 'ch', 'm')" 0}
    after 100
    assert_equal 3 [info_field $c blocked_clients clients]
    r $c CLIENT UNPAUSE
    assert_equal 1 [read_reply $w1]
    assert_equal 2 [read_reply $w2]
    assert_equal 3 [read_reply $w3]
    foreach w [list $w1 $w2 $w3] { close_client $w }
}

test "CLIENT PAUSE ALL holds every command until the timeout" {
    set w [client $srv]
    r $c CLIENT PAUSE 300 ALL
    set start [clock milliseconds]
    assert_equal PONG [r $w PING]
    assert {[clock milliseconds] - $start >= 250}
    close_client $w
}

test "keys do not expire during a pause" {
    r $c SELECT 5
    r $c FLUSHDB
    # The pause must begin before active expiry could take the key.
    r $c SET pe v PX 300
    r $c CLIENT PAUSE 100000 WRITE
    after 350
    # Logically expired for readers, but still counted until the pause ends.
    assert_equal {} [r $c GET pe]
    assert_equal 1 [r $c DBSIZE]
    r $c CLIENT UNPAUSE
    wait_for {[r $c DBSIZE] == 0}
    r $c SELECT 0
}

finish
