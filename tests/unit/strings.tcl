# strings.tcl -- the string commands: GET/SET and options, SETNX SETEX
# PSETEX GETSET GETDEL GETEX, MGET MSET MSETNX, counters, INCRBYFLOAT,
# APPEND SETRANGE GETRANGE SUBSTR STRLEN, LCS, OBJECT ENCODING, WRONGTYPE.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
r $c FLUSHALL

# A list key for WRONGTYPE checks (tests using it are tagged needs-lists).
proc make_list {key} {
    r $::c DEL $key
    r $::c RPUSH $key a b
}

# ---------------------------------------------------------------------------
# GET / SET
# ---------------------------------------------------------------------------

test "SET and GET" {
    assert_equal OK [r $c SET s:k hello]
    assert_equal hello [r $c GET s:k]
    assert_equal "+OK\r\n" [rraw $c SET s:k world]
    assert_equal "\$5\r\nworld\r\n" [rraw $c GET s:k]
}

test "GET of a missing key is a null bulk" {
    assert_equal "\$-1\r\n" [rraw $c GET s:missing]
}

test "SET overwrites and removes an existing TTL" {
    r $c SET s:ttl v EX 100
    assert_range [r $c TTL s:ttl] 90 100
    r $c SET s:ttl v2
    assert_equal -1 [r $c TTL s:ttl]
    assert_equal v2 [r $c GET s:ttl]
}

test "SET NX" {
    r $c DEL s:nx
    assert_equal OK [r $c SET s:nx a NX]
    assert_equal "\$-1\r\n" [rraw $c SET s:nx b NX]
    assert_equal a [r $c GET s:nx]
}

test "SET XX" {
    r $c DEL s:xx
    assert_equal "\$-1\r\n" [rraw $c SET s:xx a XX]
    assert_equal 0 [r $c EXISTS s:xx]
    r $c SET s:xx a
    assert_equal OK [r $c SET s:xx b XX]
    assert_equal b [r $c GET s:xx]
}

test "SET GET returns the old value" {
    r $c DEL s:get
    assert_equal "\$-1\r\n" [rraw $c SET s:get one GET]
    assert_equal one [r $c GET s:get]
    assert_equal one [r $c SET s:get two GET]
    assert_equal two [r $c GET s:get]
}

test "SET GET with NX and XX" {
    r $c DEL s:getnx
    assert_equal "\$-1\r\n" [rraw $c SET s:getnx a NX GET]
    assert_equal a [r $c GET s:getnx]
    assert_equal a [r $c SET s:getnx b NX GET]
    assert_equal a [r $c GET s:getnx]
    assert_equal a [r $c SET s:getnx c XX GET]
    assert_equal c [r $c GET s:getnx]
    r $c DEL s:getnx
    assert_equal "\$-1\r\n" [rraw $c SET s:getnx d XX GET]
    assert_equal 0 [r $c EXISTS s:getnx]
}

test "SET options are case insensitive" {
    r $c DEL s:case
    assert_equal OK [r $c SET s:case v nx ex 100]
    assert_range [r $c TTL s:case] 90 100
}

test "SET EX and PX" {
    r $c SET s:ex v EX 100
    assert_range [r $c TTL s:ex] 90 100
    r $c SET s:px v PX 100000
    assert_range [r $c PTTL s:px] 90000 100000
}

test "SET EXAT and PXAT" {
    set now [clock seconds]
    r $c SET s:exat v EXAT [expr {$now + 100}]
    assert_range [r $c TTL s:exat] 90 101
    assert_equal [expr {$now + 100}] [r $c EXPIRETIME s:exat]
    set nowms [clock milliseconds]
    r $c SET s:pxat v PXAT [expr {$nowms + 100000}]
    assert_range [r $c PTTL s:pxat] 90000 100000
    assert_equal [expr {$nowms + 100000}] [r $c PEXPIRETIME s:pxat]
}

test "SET EXAT and PXAT in the past delete the key" {
    r $c SET s:past old
    assert_equal OK [r $c SET s:past v EXAT 1]
    assert_equal 0 [r $c EXISTS s:past]
    assert_equal OK [r $c SET s:past v PXAT 1]
    assert_equal 0 [r $c EXISTS s:past]
}

test "SET KEEPTTL" {
    r $c SET s:keep v EX 100
    assert_equal OK [r $c SET s:keep v2 KEEPTTL]
    assert_range [r $c TTL s:keep] 90 100
    assert_equal v2 [r $c GET s:keep]
    r $c SET s:keep v3
    assert_equal -1 [r $c TTL s:keep]
}

test "SET invalid option combinations are syntax errors" {
    foreach opts {
        {NX XX} {XX NX} {EX 10 PX 100} {PX 100 EX 10} {EX 10 EXAT 9999999999}
        {PX 100 PXAT 9999999999999} {KEEPTTL EX 10} {EX 10 KEEPTTL}
        {PXAT 9999999999999 KEEPTTL} {foo} {EX} {PX} {EXAT} {GET foo}
    } {
        assert_error "ERR syntax error" {r $c SET s:syn v {*}$opts}
    }
    assert_equal 0 [r $c EXISTS s:syn]
}

test "SET repeated identical options are accepted" {
    r $c DEL s:rep
    assert_equal OK [r $c SET s:rep v EX 10 EX 20]
    assert_range [r $c TTL s:rep] 10 20
    assert_equal "\$-1\r\n" [rraw $c SET s:rep v NX NX]
}

test "SET invalid expire times" {
    foreach opts {{EX 0} {EX -1} {PX 0} {PX -100} {EXAT 0} {PXAT 0} {EXAT -5}} {
        assert_error "ERR invalid expire time in 'set' command" {r $c SET s:inv v {*}$opts}
    }
    assert_equal 0 [r $c EXISTS s:inv]
}

test "SET expire time overflow" {
    assert_error "ERR invalid expire time in 'set' command" {r $c SET s:ovf v EX 9223372036854775807}
    assert_error "ERR invalid expire time in 'set' command" {r $c SET s:ovf v PX 9223372036854775807}
    assert_error "ERR invalid expire time in 'set' command" {r $c SET s:ovf v EX 92233720368547758}
    assert_error "ERR invalid expire time in 'set' command" {r $c SET s:ovf v EXAT 9223372036854775807}
    assert_equal 0 [r $c EXISTS s:ovf]
}

test "SET non-integer expire" {
    assert_error "ERR value is not an integer or out of range" {r $c SET s:ni v EX abc}
    assert_error "ERR value is not an integer or out of range" {r $c SET s:ni v PX 1.5}
    assert_error "ERR value is not an integer or out of range" {r $c SET s:ni v EX 99999999999999999999}
}

test "SET arity" {
    assert_error "ERR wrong number of arguments for 'set' command" {r $c SET s:k}
    assert_error "ERR wrong number of arguments for 'get' command" {r $c GET a b}
}

# ---------------------------------------------------------------------------
# SETNX SETEX PSETEX GETSET GETDEL GETEX
# ---------------------------------------------------------------------------

test "SETNX" {
    r $c DEL s:setnx
    assert_equal 1 [r $c SETNX s:setnx a]
    assert_equal 0 [r $c SETNX s:setnx b]
    assert_equal a [r $c GET s:setnx]
}

test "SETEX and PSETEX" {
    assert_equal OK [r $c SETEX s:setex 100 v]
    assert_range [r $c TTL s:setex] 90 100
    assert_equal v [r $c GET s:setex]
    assert_equal OK [r $c PSETEX s:psetex 100000 w]
    assert_range [r $c PTTL s:psetex] 90000 100000
    assert_equal w [r $c GET s:psetex]
}

test "SETEX and PSETEX errors" {
    assert_error "ERR invalid expire time in 'setex' command" {r $c SETEX s:e 0 v}
    assert_error "ERR invalid expire time in 'setex' command" {r $c SETEX s:e -1 v}
    assert_error "ERR invalid expire time in 'psetex' command" {r $c PSETEX s:e 0 v}
    assert_error "ERR invalid expire time in 'setex' command" {r $c SETEX s:e 9223372036854775807 v}
    assert_error "ERR value is not an integer or out of range" {r $c SETEX s:e abc v}
    assert_error "ERR wrong number of arguments for 'setex' command" {r $c SETEX s:e 10}
    assert_equal 0 [r $c EXISTS s:e]
}

test "GETSET" {
    r $c DEL s:gs
    assert_equal "\$-1\r\n" [rraw $c GETSET s:gs a]
    assert_equal a [r $c GETSET s:gs b]
    assert_equal b [r $c GET s:gs]
}

test "GETSET removes the TTL" {
    r $c SET s:gst v EX 100
    r $c GETSET s:gst w
    assert_equal -1 [r $c TTL s:gst]
}

test "GETDEL" {
    r $c SET s:gd v
    assert_equal v [r $c GETDEL s:gd]
    assert_equal 0 [r $c EXISTS s:gd]
    assert_equal "\$-1\r\n" [rraw $c GETDEL s:gd]
}

test "GETEX without options is GET" {
    r $c SET s:gx v EX 100
    assert_equal v [r $c GETEX s:gx]
    assert_range [r $c TTL s:gx] 90 100
    assert_equal "\$-1\r\n" [rraw $c GETEX s:nokey]
}

test "GETEX EX PX EXAT PXAT" {
    r $c SET s:gx v
    assert_equal v [r $c GETEX s:gx EX 100]
    assert_range [r $c TTL s:gx] 90 100
    assert_equal v [r $c GETEX s:gx PX 50000]
    assert_range [r $c PTTL s:gx] 40000 50000
    set at [expr {[clock seconds] + 200}]
    assert_equal v [r $c GETEX s:gx EXAT $at]
    assert_equal $at [r $c EXPIRETIME s:gx]
    set atms [expr {[clock milliseconds] + 300000}]
    assert_equal v [r $c GETEX s:gx PXAT $atms]
    assert_equal $atms [r $c PEXPIRETIME s:gx]
}

test "GETEX PERSIST" {
    r $c SET s:gx v EX 100
    assert_equal v [r $c GETEX s:gx PERSIST]
    assert_equal -1 [r $c TTL s:gx]
}

test "GETEX with a time in the past deletes the key" {
    r $c SET s:gxp v
    assert_equal v [r $c GETEX s:gxp EXAT 1]
    assert_equal 0 [r $c EXISTS s:gxp]
}

test "GETEX on a missing key" {
    assert_equal "\$-1\r\n" [rraw $c GETEX s:nokey EX 10]
    assert_equal "\$-1\r\n" [rraw $c GETEX s:nokey PERSIST]
    assert_equal 0 [r $c EXISTS s:nokey]
}

test "GETEX errors" {
    r $c SET s:gx v
    assert_error "ERR syntax error" {r $c GETEX s:gx PERSIST EX 10}
    assert_error "ERR syntax error" {r $c GETEX s:gx EX 10 PX 100}
    assert_error "ERR syntax error" {r $c GETEX s:gx foo}
    assert_error "ERR syntax error" {r $c GETEX s:gx EX}
    assert_error "ERR invalid expire time in 'getex' command" {r $c GETEX s:gx EX 0}
    assert_error "ERR invalid expire time in 'getex' command" {r $c GETEX s:gx PX -1}
    assert_error "ERR invalid expire time in 'getex' command" {r $c GETEX s:gx EXAT 0}
    assert_error "ERR invalid expire time in 'getex' command" {r $c GETEX s:gx EX 9223372036854775807}
    assert_error "ERR value is not an integer or out of range" {r $c GETEX s:gx EX abc}
    assert_equal -1 [r $c TTL s:gx]
}

# ---------------------------------------------------------------------------
# MGET MSET MSETNX
# ---------------------------------------------------------------------------

test "MSET and MGET" {
    assert_equal OK [r $c MSET s:m1 a s:m2 b s:m3 c]
    assert_equal {a b c} [r $c MGET s:m1 s:m2 s:m3]
    assert_equal "*3\r\n\$1\r\na\r\n\$-1\r\n\$1\r\nc\r\n" [rraw $c MGET s:m1 s:nokey s:m3]
}

test "MSET with a repeated key keeps the last value" {
    r $c MSET s:dup 1 s:dup 2
    assert_equal 2 [r $c GET s:dup]
}

test "MSET arity" {
    assert_error "ERR wrong number of arguments for 'mset' command" {r $c MSET s:a 1 s:b}
    assert_error "ERR wrong number of arguments for 'mset' command" {r $c MSET s:a}
    assert_error "ERR wrong number of arguments for 'mget' command" {r $c MGET}
}

test "MSETNX" {
    r $c DEL s:n1 s:n2 s:n3
    assert_equal 1 [r $c MSETNX s:n1 a s:n2 b]
    assert_equal 0 [r $c MSETNX s:n2 x s:n3 c]
    assert_equal {a b {}} [r $c MGET s:n1 s:n2 s:n3]
    assert_equal 0 [r $c EXISTS s:n3]
    assert_equal 1 [r $c MSETNX s:n3 1 s:n3 2]
    assert_equal 2 [r $c GET s:n3]
    assert_error "ERR wrong number of arguments for 'msetnx' command" {r $c MSETNX s:n4 1 s:n5}
}

test "MGET returns null for keys of another type" -tags {needs-lists} {
    make_list s:list
    r $c SET s:str v
    assert_equal "*2\r\n\$1\r\nv\r\n\$-1\r\n" [rraw $c MGET s:str s:list]
}

# ---------------------------------------------------------------------------
# INCR DECR INCRBY DECRBY
# ---------------------------------------------------------------------------

test "INCR and DECR on a missing key" {
    r $c DEL s:ctr s:ctr2
    assert_equal 1 [r $c INCR s:ctr]
    assert_equal ":2\r\n" [rraw $c INCR s:ctr]
    assert_equal -1 [r $c DECR s:ctr2]
}

test "INCRBY and DECRBY" {
    r $c SET s:ctr 10
    assert_equal 15 [r $c INCRBY s:ctr 5]
    assert_equal 5 [r $c INCRBY s:ctr -10]
    assert_equal 2 [r $c DECRBY s:ctr 3]
    assert_equal 12 [r $c DECRBY s:ctr -10]
    assert_equal 12 [r $c GET s:ctr]
}

test "INCR on negative and large values" {
    r $c SET s:ctr -5
    assert_equal -4 [r $c INCR s:ctr]
    r $c SET s:ctr 9223372036854775806
    assert_equal 9223372036854775807 [r $c INCR s:ctr]
    r $c SET s:ctr -9223372036854775807
    assert_equal -9223372036854775808 [r $c DECR s:ctr]
}

test "INCR overflow" {
    r $c SET s:ovf 9223372036854775807
    assert_error "ERR increment or decrement would overflow" {r $c INCR s:ovf}
    assert_error "ERR increment or decrement would overflow" {r $c INCRBY s:ovf 1}
    r $c SET s:ovf -9223372036854775808
    assert_error "ERR increment or decrement would overflow" {r $c DECR s:ovf}
    assert_error "ERR increment or decrement would overflow" {r $c INCRBY s:ovf -1}
    r $c SET s:ovf -1
    assert_equal -9223372036854775808 [r $c DECRBY s:ovf 9223372036854775807]
    assert_error "ERR increment or decrement would overflow" {r $c DECRBY s:ovf 1}
    assert_equal -9223372036854775808 [r $c GET s:ovf]
}

test "DECRBY LLONG_MIN" {
    r $c SET s:ovf 0
    assert_error "ERR decrement would overflow" {r $c DECRBY s:ovf -9223372036854775808}
    assert_equal 0 [r $c GET s:ovf]
}

test "INCR on a non-integer value" {
    foreach v {abc "" " 1" "1 " "+1" "01" "-0" "1.0" "1e3" "9223372036854775808"} {
        r $c SET s:nan $v
        assert_error "ERR value is not an integer or out of range" {r $c INCR s:nan}
        assert_equal $v [r $c GET s:nan]
    }
}

test "INCRBY with a non-integer increment" {
    r $c SET s:ctr 1
    assert_error "ERR value is not an integer or out of range" {r $c INCRBY s:ctr abc}
    assert_error "ERR value is not an integer or out of range" {r $c INCRBY s:ctr 1.5}
    assert_error "ERR value is not an integer or out of range" {r $c INCRBY s:ctr 9223372036854775808}
    assert_error "ERR value is not an integer or out of range" {r $c DECRBY s:ctr abc}
    assert_equal 1 [r $c GET s:ctr]
}

test "INCR keeps the TTL" {
    r $c SET s:ctrttl 10 EX 100
    assert_equal 11 [r $c INCR s:ctrttl]
    assert_range [r $c TTL s:ctrttl] 90 100
}

test "INCR arity" {
    assert_error "ERR wrong number of arguments for 'incr' command" {r $c INCR a b}
    assert_error "ERR wrong number of arguments for 'incrby' command" {r $c INCRBY a}
}

# ---------------------------------------------------------------------------
# INCRBYFLOAT
# ---------------------------------------------------------------------------

test "INCRBYFLOAT on a missing key" {
    r $c DEL s:f
    assert_equal 1.5 [r $c INCRBYFLOAT s:f 1.5]
    assert_equal "\$3\r\n1.5\r\n" [rraw $c GET s:f]
}

test "INCRBYFLOAT formatting" {
    foreach {start incr expected} {
        10.5 0.1 10.6
        1 1.5 2.5
        3 2 5
        0.1 0.2 0.3
        1e5 1 100001
        5.0e3 200 5200
        5 -5 0
        0 -0.0 0
        1 1e-5 1.00001
        0 3.0e-17 0.00000000000000003
        17179869184 1.5 17179869185.5
        1.23456789012345678 0 1.23456789012345678
        10.6 -5.0e3 -4989.39999999999999991
        5 1E2 105
        5 .5 5.5
        5 1.e1 15
        -1.5 -1.5 -3
    } {
        r $c SET s:f $start
        assert_equal $expected [r $c INCRBYFLOAT s:f $incr] "$start + $incr"
        assert_equal $expected [r $c GET s:f]
    }
}

test "INCRBYFLOAT with huge values" {
    r $c SET s:f 1.7e308
    set v [r $c INCRBYFLOAT s:f 1.7e308]
    assert_match 34000000000000000000* $v
    assert_equal 309 [string length $v]
}

test "INCRBYFLOAT rejects NaN and Infinity" {
    r $c SET s:f 1
    assert_error "ERR increment would produce NaN or Infinity" {r $c INCRBYFLOAT s:f inf}
    assert_error "ERR increment would produce NaN or Infinity" {r $c INCRBYFLOAT s:f -inf}
    assert_error "ERR increment would produce NaN or Infinity" {r $c INCRBYFLOAT s:f +inf}
    assert_equal 1 [r $c GET s:f]
    # Long double range: 1e4932 + 1e4932 overflows.
    r $c SET s:f 1e4932
    assert_error "ERR increment would produce NaN or Infinity" {r $c INCRBYFLOAT s:f 1e4932}
    r $c SET s:f inf
    assert_error "ERR increment would produce NaN or Infinity" {r $c INCRBYFLOAT s:f 1}
    assert_equal inf [r $c GET s:f]
}

test "INCRBYFLOAT invalid values" {
    r $c SET s:f 1
    foreach bad {abc nan "" "1 " " 1" "1.5x" 1e4933} {
        assert_error "ERR value is not a valid float" {r $c INCRBYFLOAT s:f $bad}
    }
    foreach bad {abc "  1" "1 " "1.5x"} {
        r $c SET s:badf $bad
        assert_error "ERR value is not a valid float" {r $c INCRBYFLOAT s:badf 1}
        assert_equal $bad [r $c GET s:badf]
    }
}

test "INCRBYFLOAT keeps the TTL and gives an embstr" {
    r $c SET s:fttl 1 EX 100
    assert_equal 2.5 [r $c INCRBYFLOAT s:fttl 1.5]
    assert_range [r $c TTL s:fttl] 90 100
    assert_equal embstr [r $c OBJECT ENCODING s:fttl]
}

# ---------------------------------------------------------------------------
# APPEND SETRANGE GETRANGE SUBSTR STRLEN
# ---------------------------------------------------------------------------

test "APPEND" {
    r $c DEL s:app
    assert_equal 3 [r $c APPEND s:app abc]
    assert_equal 6 [r $c APPEND s:app def]
    assert_equal abcdef [r $c GET s:app]
    assert_equal 6 [r $c APPEND s:app ""]
}

test "APPEND of an empty string creates the key" {
    r $c DEL s:appe
    assert_equal 0 [r $c APPEND s:appe ""]
    assert_equal 1 [r $c EXISTS s:appe]
    assert_equal "\$0\r\n\r\n" [rraw $c GET s:appe]
}

test "APPEND to an integer value" {
    r $c SET s:appi 12
    assert_equal 4 [r $c APPEND s:appi 34]
    assert_equal 1234 [r $c GET s:appi]
    assert_equal 1235 [r $c INCR s:appi]
}

test "APPEND binary data" {
    r $c DEL s:appb
    r $c APPEND s:appb "\0\r\n"
    r $c APPEND s:appb "\xff\0"
    assert_equal "\0\r\n\xff\0" [r $c GET s:appb]
    assert_equal 5 [r $c STRLEN s:appb]
}

test "APPEND keeps the TTL" {
    r $c SET s:appt v EX 100
    r $c APPEND s:appt w
    assert_range [r $c TTL s:appt] 90 100
}

test "SETRANGE inside and past the end" {
    r $c SET s:sr "Hello World"
    assert_equal 11 [r $c SETRANGE s:sr 6 Redis]
    assert_equal "Hello Redis" [r $c GET s:sr]
    assert_equal 13 [r $c SETRANGE s:sr 11 "!!"]
    assert_equal "Hello Redis!!" [r $c GET s:sr]
}

test "SETRANGE zero-pads" {
    r $c DEL s:pad
    assert_equal 5 [r $c SETRANGE s:pad 3 ab]
    assert_equal "\0\0\0ab" [r $c GET s:pad]
    r $c SET s:pad x
    assert_equal 6 [r $c SETRANGE s:pad 5 y]
    assert_equal "x\0\0\0\0y" [r $c GET s:pad]
}

test "SETRANGE with an empty value" {
    r $c DEL s:sre
    assert_equal 0 [r $c SETRANGE s:sre 0 ""]
    assert_equal 0 [r $c EXISTS s:sre]
    assert_equal 0 [r $c SETRANGE s:sre 10 ""]
    assert_equal 0 [r $c EXISTS s:sre]
    r $c SET s:sre abc
    assert_equal 3 [r $c SETRANGE s:sre 10 ""]
    assert_equal abc [r $c GET s:sre]
}

test "SETRANGE on an integer value" {
    r $c SET s:sri 12345
    assert_equal 5 [r $c SETRANGE s:sri 0 9]
    assert_equal 92345 [r $c GET s:sri]
}

test "SETRANGE offset errors" {
    assert_error "ERR offset is out of range" {r $c SETRANGE s:sr -1 x}
    assert_error "ERR value is not an integer or out of range" {r $c SETRANGE s:sr abc x}
    assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" \
        {r $c SETRANGE s:sr 536870912 x}
    assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" \
        {r $c SETRANGE s:sr 536870900 0123456789abcdefghij}
}

test "SETRANGE and APPEND respect a lowered proto-max-bulk-len" {
    r $c CONFIG SET proto-max-bulk-len 1mb
    r $c DEL s:lim
    set err [catch {
        assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" \
            {r $c SETRANGE s:lim 1048576 x}
        assert_equal 1048576 [r $c SETRANGE s:lim 1048575 x]
        assert_error "ERR string exceeds maximum allowed size (proto-max-bulk-len)" \
            {r $c APPEND s:lim y}
        assert_equal 1048576 [r $c STRLEN s:lim]
    } msg opts]
    r $c CONFIG SET proto-max-bulk-len 512mb
    r $c DEL s:lim
    if {$err} { return -options $opts $msg }
}

test "GETRANGE" {
    r $c SET s:gr "hello world"
    assert_equal "hello world" [r $c GETRANGE s:gr 0 -1]
    assert_equal hello [r $c GETRANGE s:gr 0 4]
    assert_equal world [r $c GETRANGE s:gr -5 -1]
    assert_equal h [r $c GETRANGE s:gr 0 0]
    assert_equal d [r $c GETRANGE s:gr -1 -1]
    assert_equal "hello world" [r $c GETRANGE s:gr -100 100]
    assert_equal h [r $c GETRANGE s:gr 0 -100]
    assert_equal "\$0\r\n\r\n" [rraw $c GETRANGE s:gr 5 2]
    assert_equal "\$0\r\n\r\n" [rraw $c GETRANGE s:gr -1 -5]
    assert_equal "\$0\r\n\r\n" [rraw $c GETRANGE s:gr 100 200]
}

test "GETRANGE on missing, empty and integer values" {
    assert_equal "\$0\r\n\r\n" [rraw $c GETRANGE s:nokey 0 -1]
    r $c SET s:gre ""
    assert_equal "\$0\r\n\r\n" [rraw $c GETRANGE s:gre 0 -1]
    r $c SET s:gri 12345
    assert_equal 23 [r $c GETRANGE s:gri 1 2]
    assert_equal 12345 [r $c GETRANGE s:gri 0 -1]
}

test "GETRANGE errors" {
    assert_error "ERR value is not an integer or out of range" {r $c GETRANGE s:gr abc 1}
    assert_error "ERR value is not an integer or out of range" {r $c GETRANGE s:gr 0 1.5}
    assert_error "ERR wrong number of arguments for 'getrange' command" {r $c GETRANGE s:gr 0}
}

test "SUBSTR is GETRANGE" {
    r $c SET s:gr "hello world"
    assert_equal he [r $c SUBSTR s:gr 0 1]
    assert_equal world [r $c SUBSTR s:gr -5 -1]
    assert_equal "\$0\r\n\r\n" [rraw $c SUBSTR s:nokey 0 -1]
}

test "STRLEN" {
    r $c SET s:sl "hello"
    assert_equal 5 [r $c STRLEN s:sl]
    assert_equal 0 [r $c STRLEN s:nokey]
    r $c SET s:sl 123456
    assert_equal 6 [r $c STRLEN s:sl]
    r $c SET s:sl -12
    assert_equal 3 [r $c STRLEN s:sl]
    r $c SET s:sl ""
    assert_equal 0 [r $c STRLEN s:sl]
}

# ---------------------------------------------------------------------------
# LCS
# ---------------------------------------------------------------------------

test "LCS" {
    r $c MSET s:l1 ohmytext s:l2 mynewtext
    assert_equal mytext [r $c LCS s:l1 s:l2]
    assert_equal 6 [r $c LCS s:l1 s:l2 LEN]
}

test "LCS IDX" {
    r $c MSET s:l1 ohmytext s:l2 mynewtext
    assert_equal {matches {{{4 7} {5 8}} {{2 3} {0 1}}} len 6} [r $c LCS s:l1 s:l2 IDX]
    assert_equal "*4\r\n\$7\r\nmatches\r\n*2\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n\$3\r\nlen\r\n:6\r\n" \
        [rraw $c LCS s:l1 s:l2 IDX]
}

test "LCS IDX MINMATCHLEN and WITHMATCHLEN" {
    r $c MSET s:l1 ohmytext s:l2 mynewtext
    assert_equal {matches {{{4 7} {5 8}}} len 6} [r $c LCS s:l1 s:l2 IDX MINMATCHLEN 4]
    assert_equal {matches {{{4 7} {5 8} 4}} len 6} \
        [r $c LCS s:l1 s:l2 IDX MINMATCHLEN 4 WITHMATCHLEN]
    assert_equal {matches {{{4 7} {5 8} 4} {{2 3} {0 1} 2}} len 6} \
        [r $c LCS s:l1 s:l2 IDX WITHMATCHLEN]
    assert_equal {matches {{{4 7} {5 8}} {{2 3} {0 1}}} len 6} \
        [r $c LCS s:l1 s:l2 IDX MINMATCHLEN -1]
}

test "LCS with missing keys" {
    r $c SET s:l1 ohmytext
    assert_equal "\$0\r\n\r\n" [rraw $c LCS s:l1 s:nokey]
    assert_equal 0 [r $c LCS s:nokey s:nokey2 LEN]
    assert_equal "*4\r\n\$7\r\nmatches\r\n*0\r\n\$3\r\nlen\r\n:0\r\n" [rraw $c LCS s:nokey s:nokey2 IDX]
}

test "LCS of longer strings" {
    r $c MSET s:l1 "The quick brown fox jumps" s:l2 "A quick red fox jumped"
    assert_equal " quick r fox jump" [r $c LCS s:l1 s:l2]
    assert_equal 17 [r $c LCS s:l1 s:l2 LEN]
}

test "LCS errors" {
    r $c MSET s:l1 a s:l2 b
    assert_error "ERR If you want both the length and indexes, please just use IDX." \
        {r $c LCS s:l1 s:l2 LEN IDX}
    assert_error "ERR syntax error" {r $c LCS s:l1 s:l2 foo}
    assert_error "ERR syntax error" {r $c LCS s:l1 s:l2 MINMATCHLEN}
    assert_error "ERR value is not an integer or out of range" {r $c LCS s:l1 s:l2 MINMATCHLEN x}
    assert_error "ERR wrong number of arguments for 'lcs' command" {r $c LCS s:l1}
}

test "LCS on a non-string key" -tags {needs-lists} {
    make_list s:list
    r $c SET s:l1 a
    assert_error "ERR The specified keys must contain string values" {r $c LCS s:l1 s:list}
}

# ---------------------------------------------------------------------------
# OBJECT ENCODING
# ---------------------------------------------------------------------------

test "OBJECT ENCODING int" {
    foreach v {0 1 -1 12345 9223372036854775807 -9223372036854775808} {
        r $c SET s:enc $v
        assert_equal int [r $c OBJECT ENCODING s:enc] $v
    }
}

test "OBJECT ENCODING of non-canonical integers is not int" {
    foreach v {" 12" 012 -0 +1 9223372036854775808 1.5 1e3} {
        r $c SET s:enc $v
        assert_equal embstr [r $c OBJECT ENCODING s:enc] $v
    }
}

test "OBJECT ENCODING embstr up to 44 bytes, raw beyond" {
    r $c SET s:enc [string repeat x 44]
    assert_equal embstr [r $c OBJECT ENCODING s:enc]
    r $c SET s:enc [string repeat x 45]
    assert_equal raw [r $c OBJECT ENCODING s:enc]
    r $c SET s:enc ""
    assert_equal embstr [r $c OBJECT ENCODING s:enc]
}

test "APPEND and SETRANGE make a raw string" {
    r $c SET s:enc abc
    assert_equal embstr [r $c OBJECT ENCODING s:enc]
    r $c APPEND s:enc d
    assert_equal raw [r $c OBJECT ENCODING s:enc]
    r $c SET s:enc 123
    r $c APPEND s:enc 4
    assert_equal raw [r $c OBJECT ENCODING s:enc]
    r $c SET s:enc abc
    r $c SETRANGE s:enc 1 x
    assert_equal raw [r $c OBJECT ENCODING s:enc]
}

test "INCR result is int encoded" {
    r $c SET s:enc 10
    r $c APPEND s:enc 0
    assert_equal raw [r $c OBJECT ENCODING s:enc]
    assert_equal 101 [r $c INCR s:enc]
    assert_equal int [r $c OBJECT ENCODING s:enc]
    r $c DEL s:enc
    r $c INCRBY s:enc 5
    assert_equal int [r $c OBJECT ENCODING s:enc]
}

test "OBJECT ENCODING of a missing key" {
    assert_equal "\$-1\r\n" [rraw $c OBJECT ENCODING s:nokey]
}

# ---------------------------------------------------------------------------
# WRONGTYPE
# ---------------------------------------------------------------------------

test "string commands on a list key fail with WRONGTYPE" -tags {needs-lists} {
    make_list s:list
    set wt "WRONGTYPE Operation against a key holding the wrong kind of value"
    foreach cmd {
        {GET s:list} {GETSET s:list x} {GETDEL s:list} {GETEX s:list} {GETEX s:list EX 10}
        {SET s:list x GET} {APPEND s:list x} {SETRANGE s:list 0 x} {GETRANGE s:list 0 1}
        {STRLEN s:list} {INCR s:list} {DECR s:list} {INCRBY s:list 1}
        {DECRBY s:list 1} {INCRBYFLOAT s:list 1}
    } {
        assert_error $wt {r $c {*}$cmd}
    }
    assert_equal "-$wt\r\n" [rraw $c GET s:list]
    assert_equal list [r $c TYPE s:list]
    assert_equal -1 [r $c TTL s:list]
}

test "SET, SETNX and MSET overwrite or respect a list key" -tags {needs-lists} {
    make_list s:list
    assert_equal 0 [r $c SETNX s:list x]
    assert_equal list [r $c TYPE s:list]
    assert_equal OK [r $c SET s:list x]
    assert_equal string [r $c TYPE s:list]
    make_list s:list
    assert_equal OK [r $c MSET s:list y]
    assert_equal y [r $c GET s:list]
}

finish
