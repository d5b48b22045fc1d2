# blocking.tcl -- BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP: serving at once,
# waking on pushes from other clients in arrival order, timeouts and their
# replies (RESP2 and RESP3), timeout parsing errors, waiting on several
# keys, keys created by RENAME/MOVE/COPY/LMOVE, keys of the wrong type,
# disconnects, CLIENT UNBLOCK, transactions, and (cairn only) the
# non-blocking form a served command is propagated as.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
r $c FLUSHALL

set WT "WRONGTYPE Operation against a key holding the wrong kind of value"

proc blocked {} { return [info_field $::c blocked_clients] }

# Opens a client, sends a blocking command and waits until the server
# counts one more blocked client. Returns the client.
proc block_on {args} {
    set before [blocked]
    set w [client $::srv]
    send_cmd $w {*}$args
    wait_for {[blocked] == $before + 1} 5000 "client did not block: $args"
    return $w
}

# The client is still waiting: no reply within ms.
proc assert_still_blocked {w {ms 200}} {
    set_timeout $w $ms
    assert_error "*timeout*" {read_reply $w}
    set_timeout $w 10000
}

# ---------------------------------------------------------------------------
# served at once
# ---------------------------------------------------------------------------

test "blocking commands on non-empty lists are served at once" {
    r $c DEL l dst
    r $c RPUSH l a b c d e f
    assert_equal "*2\r\n\$1\r\nl\r\n\$1\r\na\r\n" [rraw $c BLPOP l 1]
    assert_equal {l f} [r $c BRPOP nokey l 0]
    assert_equal b [r $c BLMOVE l dst LEFT RIGHT 0]
    assert_equal e [r $c BRPOPLPUSH l dst 0]
    assert_equal [list l [list c d]] [r $c BLMPOP 0 2 nokey l LEFT COUNT 5]
    assert_equal 0 [r $c EXISTS l]
    assert_equal {e b} [r $c LRANGE dst 0 -1]
    assert_equal 0 [blocked]
}

test "a wrong-type key met before a list fails the command" {
    r $c DEL s l
    r $c SET s x
    r $c RPUSH l a
    assert_error $WT {r $c BLPOP s l 0}
    assert_equal {l a} [r $c BLPOP l s 0]
    r $c RPUSH l a
    assert_error $WT {r $c BLMPOP 0 2 nokey s LEFT}
    assert_error $WT {r $c BLMOVE s l LEFT LEFT 0}
    assert_error $WT {r $c BLMOVE l s LEFT LEFT 0}
    assert_error $WT {r $c BRPOPLPUSH l s 0}
    assert_equal {a} [r $c LRANGE l 0 -1]
}

# ---------------------------------------------------------------------------
# waking up
# ---------------------------------------------------------------------------

test "BLPOP wakes up on a push from another client" {
    r $c DEL q
    set w [block_on BLPOP q 0]
    assert_equal 1 [r $c RPUSH q hello]
    assert_equal "*2\r\n\$1\r\nq\r\n\$5\r\nhello\r\n" [read_raw_reply $w]
    assert_equal 0 [r $c EXISTS q]
    assert_equal 0 [blocked]
    close_client $w
}

test "every blocking command wakes up on a push" {
    r $c DEL q dst
    set w1 [block_on BRPOP q 0]
    r $c RPUSH q a b
    assert_equal {q b} [read_reply $w1]
    r $c DEL q
    set w2 [block_on BLMOVE q dst RIGHT LEFT 0]
    r $c RPUSH q x
    assert_equal x [read_reply $w2]
    r $c DEL q
    set w3 [block_on BRPOPLPUSH q dst 0]
    r $c LPUSH q y
    assert_equal y [read_reply $w3]
    set w4 [block_on BLMPOP 0 1 q RIGHT COUNT 2]
    r $c RPUSH q 1 2 3
    assert_equal [list q [list 3 2]] [read_reply $w4]
    assert_equal {1} [r $c LRANGE q 0 -1]
    assert_equal {y x} [r $c LRANGE dst 0 -1]
    foreach w [list $w1 $w2 $w3 $w4] { close_client $w }
}

test "waiters are served in arrival order" {
    r $c DEL q
    set w1 [block_on BLPOP q 0]
    set w2 [block_on BRPOP q 0]
    set w3 [block_on BLPOP q 0]
    r $c RPUSH q only
    assert_equal {q only} [read_reply $w1]
    assert_still_blocked $w2 100
    assert_equal 2 [blocked]
    r $c RPUSH q a b c
    assert_equal {q c} [read_reply $w2]
    assert_equal {q a} [read_reply $w3]
    assert_equal {b} [r $c LRANGE q 0 -1]
    assert_equal 0 [blocked]
    foreach w [list $w1 $w2 $w3] { close_client $w }
}

test "one push of several elements serves several waiters" {
    r $c DEL q
    set w1 [block_on BLPOP q 0]
    set w2 [block_on BLMPOP 0 1 q LEFT COUNT 2]
    set w3 [block_on BLPOP q 0]
    r $c RPUSH q 1 2 3 4 5
    assert_equal {q 1} [read_reply $w1]
    assert_equal [list q [list 2 3]] [read_reply $w2]
    assert_equal {q 4} [read_reply $w3]
    assert_equal {5} [r $c LRANGE q 0 -1]
    foreach w [list $w1 $w2 $w3] { close_client $w }
}

test "a waiter on several keys is served by whichever gets an element" {
    r $c DEL k1 k2 k3
    set w [block_on BLPOP k1 k2 k3 0]
    r $c RPUSH k2 v2
    assert_equal {k2 v2} [read_reply $w]
    send_cmd $w BLMPOP 0 3 k1 k2 k3 RIGHT COUNT 10
    wait_for {[blocked] == 1}
    r $c RPUSH k3 a b
    assert_equal [list k3 [list b a]] [read_reply $w]
    close_client $w
}

test "in a transaction the waiter is served from the key that became ready first" {
    r $c DEL k1 k2
    set w [block_on BLPOP k1 k2 0]
    r $c MULTI
    r $c RPUSH k2 x
    r $c RPUSH k1 y
    assert_equal {1 1} [r $c EXEC]
    assert_equal {k2 x} [read_reply $w]
    assert_equal {y} [r $c LRANGE k1 0 -1]
    close_client $w
}

test "a served BLMOVE feeds a waiter on its destination" {
    r $c DEL src mid
    set w1 [block_on BLMOVE src mid LEFT LEFT 0]
    set w2 [block_on BLPOP mid 0]
    r $c RPUSH src v
    assert_equal v [read_reply $w1]
    assert_equal {mid v} [read_reply $w2]
    assert_equal 0 [r $c EXISTS mid]
    close_client $w1
    close_client $w2
}

test "BLMOVE with source == destination" {
    r $c DEL ring
    r $c RPUSH ring a b c
    assert_equal a [r $c BLMOVE ring ring LEFT RIGHT 0]
    assert_equal {b c a} [r $c LRANGE ring 0 -1]
    assert_equal a [r $c BRPOPLPUSH ring ring 0]
    assert_equal {a b c} [r $c LRANGE ring 0 -1]
    r $c DEL ring
    set w [block_on BLMOVE ring ring RIGHT LEFT 0]
    r $c RPUSH ring x
    assert_equal x [read_reply $w]
    assert_equal {x} [r $c LRANGE ring 0 -1]
    close_client $w
}

test "a served BLMOVE whose destination is not a list gets WRONGTYPE" {
    r $c DEL src dst
    set w1 [block_on BLMOVE src dst LEFT LEFT 0]
    set w2 [block_on BLPOP src 0]
    r $c SET dst str
    r $c RPUSH src a
    assert_error $WT {read_reply $w1}
    assert_equal {src a} [read_reply $w2]
    assert_equal str [r $c GET dst]
    close_client $w1
    close_client $w2
}

test "keys created by RENAME, MOVE, COPY and SWAPDB wake the waiter" {
    r $c DEL target tmp
    set w [block_on BLPOP target 0]
    r $c RPUSH tmp r1
    r $c RENAME tmp target
    assert_equal {target r1} [read_reply $w]

    send_cmd $w BLPOP target 0
    wait_for {[blocked] == 1}
    r $c SELECT 5
    r $c DEL target
    r $c RPUSH target m1
    r $c MOVE target 0
    r $c SELECT 0
    assert_equal {target m1} [read_reply $w]

    send_cmd $w BRPOP target 0
    wait_for {[blocked] == 1}
    r $c RPUSH tmp c1 c2
    r $c COPY tmp target
    assert_equal {target c2} [read_reply $w]
    assert_equal {c1 c2} [r $c LRANGE tmp 0 -1]
    assert_equal {c1} [r $c LRANGE target 0 -1]

    r $c DEL target
    send_cmd $w BLPOP target 0
    wait_for {[blocked] == 1}
    r $c SELECT 6
    r $c DEL target
    r $c RPUSH target s1
    r $c SWAPDB 0 6
    r $c SELECT 0
    assert_equal {target s1} [read_reply $w]
    r $c SWAPDB 0 6
    close_client $w
}

test "a key of the wrong type does not serve; the waiter keeps waiting" {
    r $c DEL k
    set w [block_on BLPOP k 0]
    r $c SET k string
    assert_still_blocked $w
    assert_equal 1 [blocked]
    r $c DEL k
    r $c RPUSH k ok
    assert_equal {k ok} [read_reply $w]
    close_client $w
}

test "a waiter in another database is not served" {
    r $c DEL k
    set w [client $srv]
    r $w SELECT 3
    r $w DEL k
    send_cmd $w BLPOP k 0
    wait_for {[blocked] == 1}
    r $c RPUSH k db0
    assert_still_blocked $w 100
    r $c SELECT 3
    r $c RPUSH k db3
    r $c SELECT 0
    assert_equal {k db3} [read_reply $w]
    assert_equal {db0} [r $c LRANGE k 0 -1]
    close_client $w
}

# ---------------------------------------------------------------------------
# timeouts
# ---------------------------------------------------------------------------

test "timeouts reply with a null array (RESP2)" {
    r $c DEL none
    foreach cmd {
        {BLPOP none 0.1} {BRPOP none x2 0.1} {BLMOVE none dst LEFT LEFT 0.1}
        {BRPOPLPUSH none dst 0.1} {BLMPOP 0.1 1 none LEFT}
    } {
        assert_equal "*-1\r\n" [rraw $c {*}$cmd] $cmd
    }
    assert_equal 0 [blocked]
}

test "timeouts reply with null in RESP3" {
    set c3 [client $srv -resp 3]
    foreach cmd {{BLPOP none 0.1} {BLMOVE none dst LEFT LEFT 0.1} {BLMPOP 0.1 1 none RIGHT COUNT 3}} {
        assert_equal "_\r\n" [rraw $c3 {*}$cmd] $cmd
    }
    close_client $c3
}

test "fractional timeouts" {
    set t0 [clock milliseconds]
    assert_equal "*-1\r\n" [rraw $c BLPOP none 0.3]
    set elapsed [expr {[clock milliseconds] - $t0}]
    assert_range $elapsed 250 2000
    assert_equal "*-1\r\n" [rraw $c BRPOP none .05]
    # Under a millisecond rounds up to 1 ms: it times out, never waits forever.
    assert_equal "*-1\r\n" [rraw $c BLPOP none 0.0001]
}

test "timeout 0 waits until served" {
    r $c DEL q
    set w [block_on BRPOPLPUSH q dst2 0]
    assert_still_blocked $w 400
    r $c RPUSH q late
    assert_equal late [read_reply $w]
    close_client $w
}

test "invalid and negative timeouts" {
    foreach t {abc "" " 1" "1 " nan 0x} {
        assert_error "ERR timeout is not a float or out of range" {r $c BLPOP none $t}
    }
    foreach t {-1 -0.0011 inf -inf 1e400 1e20 9223372036854776} {
        assert_error "ERR timeout is negative" {r $c BLPOP none $t}
    }
    assert_error "ERR timeout is negative" {r $c BLMOVE none d LEFT LEFT -1}
    assert_error "ERR timeout is negative" {r $c BRPOPLPUSH none d -2}
    assert_error "ERR timeout is not a float or out of range" {r $c BLMPOP x 1 none LEFT}
    # The timeout is parsed before the keys are looked at.
    r $c SET str x
    assert_error "ERR timeout is negative" {r $c BLPOP str -1}
    # ... but after the other arguments of BLMOVE and BLMPOP.
    assert_error "ERR syntax error" {r $c BLMOVE none d UP LEFT -1}
    assert_error "ERR numkeys should be greater than 0" {r $c BLMPOP -1 0 none LEFT}
    assert_error "ERR syntax error" {r $c BLMPOP -1 1 none MIDDLE}
    assert_error "ERR count should be greater than 0" {r $c BLMPOP -1 1 none LEFT COUNT 0}
    assert_equal 0 [blocked]
}

test "a tiny negative timeout rounds to 0 and waits forever" {
    r $c DEL q
    set w [block_on BLPOP q -0.0001]
    assert_still_blocked $w 200
    r $c RPUSH q v
    assert_equal {q v} [read_reply $w]
    close_client $w
}

test "wrong number of arguments" {
    foreach {cmd args} {blpop {k} brpop {} blmove {a b left left} brpoplpush {a b}
            blmpop {0 1 k}} {
        assert_error "ERR wrong number of arguments for '$cmd' command" {r $c $cmd {*}$args}
    }
}

# ---------------------------------------------------------------------------
# leaving without being served
# ---------------------------------------------------------------------------

test "a client that disconnects while blocked leaves no trace" {
    r $c DEL q
    set w1 [block_on BLPOP q 0]
    set w2 [block_on BLMOVE q d LEFT LEFT 0]
    close_client $w1
    close_client $w2
    wait_for {[blocked] == 0} 5000
    assert_equal PONG [r $c PING]
    r $c RPUSH q still-here
    assert_equal {still-here} [r $c LRANGE q 0 -1]
    set w3 [block_on BLPOP q2 0]
    r $c RPUSH q2 x
    assert_equal {q2 x} [read_reply $w3]
    close_client $w3
}

test "CLIENT UNBLOCK with TIMEOUT and ERROR" {
    set w [client $srv]
    set id [r $w CLIENT ID]
    foreach {cmd want} {{BLPOP q9 0} "*-1\r\n" {BLMOVE q9 d LEFT LEFT 0} "*-1\r\n"
            {BLMPOP 0 1 q9 LEFT} "*-1\r\n"} {
        send_cmd $w {*}$cmd
        wait_for {[blocked] == 1}
        assert_equal 1 [r $c CLIENT UNBLOCK $id TIMEOUT]
        assert_equal $want [read_raw_reply $w]
    }
    send_cmd $w BRPOP q9 0
    wait_for {[blocked] == 1}
    assert_equal 1 [r $c CLIENT UNBLOCK $id ERROR]
    assert_equal "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n" [read_raw_reply $w]
    assert_equal 0 [r $c CLIENT UNBLOCK $id]
    assert_equal 0 [blocked]
    # The client works normally afterwards.
    assert_equal PONG [r $w PING]
    close_client $w
}

test "inside MULTI blocking commands do not block" {
    r $c DEL none
    r $c MULTI
    r $c BLPOP none 0
    r $c BLMOVE none d LEFT LEFT 0
    r $c BRPOPLPUSH none d 0
    r $c BLMPOP 0 1 none LEFT
    assert_equal "*4\r\n*-1\r\n\$-1\r\n\$-1\r\n*-1\r\n" [rraw $c EXEC]
    r $c RPUSH l1 a
    r $c MULTI
    r $c BLPOP l1 0
    assert_equal {{l1 a}} [r $c EXEC]
}

test "INFO counts blocked clients" {
    set ws {}
    for {set i 1} {$i <= 3} {incr i} { lappend ws [block_on BLPOP "cnt$i" 0] }
    assert_equal 3 [blocked]
    foreach w $ws { close_client $w }
    wait_for {[blocked] == 0}
}

# ---------------------------------------------------------------------------
# propagation (cairn only: DEBUG PROPAGATED)
# ---------------------------------------------------------------------------

test "served blocking commands propagate as their non-blocking forms" {
    if {[catch {r $c DEBUG PROPAGATED}]} { skip_test "server has no DEBUG PROPAGATED (not cairn)" }
    r $c DEL p
    r $c RPUSH p 1 2 3 4 5 6
    r $c DEBUG PROPAGATED
    r $c BLPOP p 0
    r $c BRPOP p 0
    r $c BLMOVE p d LEFT Right 0
    r $c BRPOPLPUSH p d 0
    r $c BLMPOP 0 1 p LEFT COUNT 10
    assert_equal "[resp LPOP p][resp RPOP p][resp LMOVE p d LEFT Right][resp RPOPLPUSH p d][resp LPOP p 2]" \
            [r $c DEBUG PROPAGATED]
    r $c DEL d
    set w1 [block_on BLMOVE p d LEFT RIGHT 0]
    set w2 [block_on BLMPOP 0 2 x p RIGHT COUNT 5]
    r $c DEBUG PROPAGATED
    r $c RPUSH p a b c
    read_reply $w1
    read_reply $w2
    assert_equal "[resp RPUSH p a b c][resp LMOVE p d left right][resp RPOP p 2]" [r $c DEBUG PROPAGATED]
    close_client $w1
    close_client $w2
}

test "a key that expires before its waiters are served is deleted; they keep their order" {
    r $c FLUSHALL
    r $c DEBUG SET-ACTIVE-EXPIRE 0
    set before [info_field $c expired_keys stats]
    set w1 [block_on BRPOP k 0]
    set w2 [block_on BRPOP k 0]
    # The push wakes the waiters only when EXEC ends, by which time the
    # key's 100 ms are over: it is deleted as expired, nobody is served,
    # and the first waiter is still first in line.
    r $c MULTI
    r $c RPUSH k hello
    r $c PEXPIRE k 100
    r $c DEBUG SLEEP 0.2
    assert_equal {1 1 OK} [r $c EXEC]
    assert_still_blocked $w1
    assert_still_blocked $w2
    assert_equal 0 [r $c DBSIZE]
    assert_equal [expr {$before + 1}] [info_field $c expired_keys stats]
    r $c RPUSH k first
    assert_equal {k first} [read_reply $w1]
    assert_still_blocked $w2
    r $c RPUSH k second
    assert_equal {k second} [read_reply $w2]
    r $c DEBUG SET-ACTIVE-EXPIRE 1
    close_client $w1
    close_client $w2
}

finish
