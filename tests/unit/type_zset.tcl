# type_zset.tcl -- sorted sets: ZADD and its options, ZINCRBY ZREM ZCARD
# ZSCORE ZMSCORE ZRANK ZREVRANK ZCOUNT ZLEXCOUNT, the ZRANGE family and
# ZRANGESTORE, ZREMRANGEBY*, pops (ZPOP*, ZMPOP) and blocking pops (BZPOP*,
# BZMPOP), ZUNION/ZINTER/ZDIFF (+STORE) and ZINTERCARD, ZRANDMEMBER, ZSCAN,
# both encodings (listpack and skiplist) and the conversions between them,
# RESP2/RESP3 reply shapes, errors and arity, plain sets as inputs of the
# set operations. Replies were checked against redis-server 7.0.15 byte for
# byte.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
set c3 [client $srv -resp 3]
r $c FLUSHALL

# Create key with the given members in the given encoding: skiplist is
# forced by creating the key while zset-max-listpack-entries is 0.
proc zcreate {enc key args} {
    r $::c DEL $key
    if {$enc eq "skiplist"} { r $::c CONFIG SET zset-max-listpack-entries 0 }
    set err [catch {r $::c ZADD $key {*}$args} res]
    if {$enc eq "skiplist"} { r $::c CONFIG SET zset-max-listpack-entries 128 }
    if {$err} { error $res }
    assert_equal $enc [r $::c OBJECT ENCODING $key]
}

# Restore the encoding thresholds whatever a test did to them.
proc zdefaults {} {
    r $::c CONFIG SET zset-max-listpack-entries 128
    r $::c CONFIG SET zset-max-listpack-value 64
}

set wrongtype "WRONGTYPE Operation against a key holding the wrong kind of value"

foreach enc {listpack skiplist} {

# ---------------------------------------------------------------------------
# ZADD, ZINCRBY, ZREM, ZCARD, ZSCORE, ZMSCORE, ZRANK
# ---------------------------------------------------------------------------

test "ZADD adds, updates and counts ($enc)" {
    zcreate $enc z:a 3 c 1 a 2 b
    assert_equal 3 [r $c ZCARD z:a]
    assert_equal {a 1 b 2 c 3} [r $c ZRANGE z:a 0 -1 WITHSCORES]
    assert_equal 1 [r $c ZADD z:a 10 a 4 d]
    assert_equal {b c d a} [r $c ZRANGE z:a 0 -1]
    assert_equal ":0\r\n" [rraw $c ZADD z:a 10 a]
    assert_equal 10 [r $c ZSCORE z:a a]
    assert_equal $enc [r $c OBJECT ENCODING z:a]
}

test "ZADD orders equal scores by member bytes ($enc)" {
    zcreate $enc z:eq 0 b 0 a 0 ab 0 B 0 "a\x00" 0 "" 0 10 0 9 0 -1
    assert_equal [list "" -1 10 9 B a "a\x00" ab b] [r $c ZRANGE z:eq 0 -1]
}

test "ZADD NX, XX, CH, GT, LT ($enc)" {
    zcreate $enc z:o 1 a 2 b
    assert_equal 1 [r $c ZADD z:o NX 5 a 3 c]
    assert_equal 1 [r $c ZSCORE z:o a]
    assert_equal 0 [r $c ZADD z:o XX 5 a 4 d]
    assert_equal 5 [r $c ZSCORE z:o a]
    assert_equal {} [r $c ZSCORE z:o d]
    assert_equal 1 [r $c ZADD z:o XX CH 6 a 2 b]
    assert_equal 2 [r $c ZADD z:o CH 7 a 8 e]
    assert_equal 2 [r $c ZADD z:o GT CH 1 a 9 b 1 f]
    assert_equal {7 9 1} [r $c ZMSCORE z:o a b f]
    assert_equal 1 [r $c ZADD z:o LT CH 100 a 0 b]
    assert_equal {7 0} [r $c ZMSCORE z:o a b]
    assert_equal 0 [r $c ZADD z:o XX GT 1 a 1 nope]
    assert_equal 1 [r $c ZADD z:o Gt cH 50 a] "options are case-insensitive"
}

test "ZADD option conflicts and syntax errors ($enc)" {
    zcreate $enc z:e 1 a
    assert_error "ERR XX and NX options at the same time are not compatible" {r $c ZADD z:e NX XX 1 a}
    assert_error "ERR GT, LT, and/or NX options at the same time are not compatible" {r $c ZADD z:e GT LT 1 a}
    assert_error "ERR GT, LT, and/or NX options at the same time are not compatible" {r $c ZADD z:e NX GT 1 a}
    assert_error "ERR GT, LT, and/or NX options at the same time are not compatible" {r $c ZADD z:e LT NX 1 a}
    assert_error "ERR INCR option supports a single increment-element pair" {r $c ZADD z:e INCR 1 a 2 b}
    assert_error "ERR syntax error" {r $c ZADD z:e 1 a 2}
    assert_error "ERR syntax error" {r $c ZADD z:e 1 a NX}
    assert_error "ERR syntax error" {r $c ZADD z:e NX CH}
    assert_error "ERR syntax error" {r $c ZINCRBY z:e NX a}
    assert_error "ERR wrong number of arguments for 'zadd' command" {r $c ZADD z:e 1}
    assert_error "ERR wrong number of arguments for 'zincrby' command" {r $c ZINCRBY z:e 1}
    foreach bad {abc nan " 1" "1 " "" 1e400 -1e400 1.5.5 "1\x00"} {
        assert_error "ERR value is not a valid float" {r $c ZADD z:e $bad a}
    }
    assert_error "ERR value is not a valid float" {r $c ZADD z:e 1 a abc b}
    assert_equal {a 1} [r $c ZRANGE z:e 0 -1 WITHSCORES] "a bad score changes nothing"
}

test "ZADD INCR and ZINCRBY ($enc)" {
    zcreate $enc z:i 1 a
    assert_equal 3.5 [r $c ZADD z:i INCR 2.5 a]
    assert_equal 2 [r $c ZINCRBY z:i 2 new]
    assert_equal -1.5 [r $c ZINCRBY z:i -5 a]
    assert_equal "\$-1\r\n" [rraw $c ZADD z:i INCR XX 1 nope]
    assert_equal "\$-1\r\n" [rraw $c ZADD z:i INCR NX 1 a]
    assert_equal "\$-1\r\n" [rraw $c ZADD z:i INCR GT -1 a]
    assert_equal -3.5 [r $c ZADD z:i INCR LT -2 a]
    assert_equal "\$3\r\ninf\r\n" [rraw $c ZADD z:i INCR inf a]
    assert_error "ERR resulting score is not a number (NaN)" {r $c ZADD z:i INCR -inf a}
    assert_error "ERR resulting score is not a number (NaN)" {r $c ZINCRBY z:i -inf a}
    assert_error "ERR value is not a valid float" {r $c ZINCRBY z:i abc a}
    assert_equal inf [r $c ZSCORE z:i a]
    assert_equal "\$-1\r\n" [rraw $c ZADD z:missing INCR XX 1 a]
    assert_equal 0 [r $c EXISTS z:missing]
}

test "ZADD accepts inf, -inf, hex and exponents; score formatting ($enc)" {
    zcreate $enc z:f inf a -inf b +inf c 0x10 d 1e3 e 0.1 f 1.5 g -0 h 1e17 i 123456789012 j
    # A listpack stores -0 as the integer 0; the skip list keeps the double.
    if {$enc eq "listpack"} { set zero 0 } else { set zero -0 }
    assert_equal "b -inf h $zero f 0.10000000000000001 g 1.5 d 16 e 1000 j 123456789012 i 1e+17 a inf c inf" \
        [r $c ZRANGE z:f 0 -1 WITHSCORES]
    assert_equal "\$3\r\ninf\r\n" [rraw $c ZSCORE z:f a]
    assert_equal "\$4\r\n-inf\r\n" [rraw $c ZSCORE z:f b]
}

test "ZREM removes members and deletes the emptied key ($enc)" {
    zcreate $enc z:r 1 a 2 b 3 c
    assert_equal 2 [r $c ZREM z:r a c nope a]
    assert_equal 0 [r $c ZREM z:r nope]
    assert_equal {b} [r $c ZRANGE z:r 0 -1]
    assert_equal 1 [r $c ZREM z:r b x]
    assert_equal 0 [r $c EXISTS z:r]
    assert_equal 0 [r $c ZREM z:r b]
}

test "ZSCORE, ZMSCORE, ZRANK, ZREVRANK ($enc)" {
    zcreate $enc z:s 1 a 2.5 b 3 c
    assert_equal "\$3\r\n2.5\r\n" [rraw $c ZSCORE z:s b]
    assert_equal "\$-1\r\n" [rraw $c ZSCORE z:s nope]
    assert_equal "\$-1\r\n" [rraw $c ZSCORE z:nokey a]
    assert_equal "*3\r\n\$1\r\n1\r\n\$-1\r\n\$1\r\n3\r\n" [rraw $c ZMSCORE z:s a nope c]
    assert_equal "*2\r\n\$-1\r\n\$-1\r\n" [rraw $c ZMSCORE z:nokey a b]
    assert_equal {0 1 2} [list [r $c ZRANK z:s a] [r $c ZRANK z:s b] [r $c ZRANK z:s c]]
    assert_equal {2 1 0} [list [r $c ZREVRANK z:s a] [r $c ZREVRANK z:s b] [r $c ZREVRANK z:s c]]
    assert_equal "\$-1\r\n" [rraw $c ZRANK z:s nope]
    assert_equal "\$-1\r\n" [rraw $c ZREVRANK z:nokey a]
    assert_equal ":0\r\n" [rraw $c ZCARD z:nokey]
}

test "RESP3: scores are doubles ($enc)" {
    zcreate $enc z:r3 1 a 2.5 b
    assert_equal ",2.5\r\n" [rraw $c3 ZSCORE z:r3 b]
    assert_equal "_\r\n" [rraw $c3 ZSCORE z:r3 nope]
    assert_equal "*2\r\n,1\r\n_\r\n" [rraw $c3 ZMSCORE z:r3 a nope]
    assert_equal ",3.5\r\n" [rraw $c3 ZINCRBY z:r3 1 b]
    assert_equal ",inf\r\n" [rraw $c3 ZADD z:r3 INCR inf a]
    assert_equal "_\r\n" [rraw $c3 ZADD z:r3 INCR XX 1 nope]
}

# ---------------------------------------------------------------------------
# ZCOUNT, ZLEXCOUNT, the ZRANGE family
# ---------------------------------------------------------------------------

test "ZCOUNT and ZLEXCOUNT with open, closed and infinite ends ($enc)" {
    zcreate $enc z:c -inf m 1 a 2 b 3 c 3 d 4 e inf n
    assert_equal 7 [r $c ZCOUNT z:c -inf +inf]
    assert_equal 4 [r $c ZCOUNT z:c 1 3]
    assert_equal 1 [r $c ZCOUNT z:c (1 (3]
    assert_equal 0 [r $c ZCOUNT z:c 3 (3]
    assert_equal 0 [r $c ZCOUNT z:c 5 1]
    assert_equal 1 [r $c ZCOUNT z:c "" (2] "strtod reads an empty bound as 0"
    assert_equal 3 [r $c ZCOUNT z:c " 2" 3.0]
    assert_equal 1 [r $c ZCOUNT z:c 1e400 inf]
    zcreate $enc z:l 0 a 0 b 0 c 0 d 0 e
    assert_equal 5 [r $c ZLEXCOUNT z:l - +]
    assert_equal 2 [r $c ZLEXCOUNT z:l \[b (d]
    assert_equal 0 [r $c ZLEXCOUNT z:l + -]
    assert_equal 0 [r $c ZLEXCOUNT z:l \[c (c]
    assert_equal 3 [r $c ZLEXCOUNT z:l (b +]
    assert_equal 0 [r $c ZCOUNT z:nokey 1 2]
    assert_error "ERR min or max is not a float" {r $c ZCOUNT z:c a 1}
    assert_error "ERR min or max is not a float" {r $c ZCOUNT z:nokey 1 nan}
    assert_error "ERR min or max not valid string range item" {r $c ZLEXCOUNT z:l a +}
    assert_error "ERR min or max not valid string range item" {r $c ZLEXCOUNT z:l - ""}
    assert_error "ERR min or max not valid string range item" {r $c ZLEXCOUNT z:l -x +}
}

test "ZRANGE by rank: negative, reversed and out-of-range indexes ($enc)" {
    zcreate $enc z:g 1 a 2 b 3 c 4 d 5 e
    assert_equal {a b c d e} [r $c ZRANGE z:g 0 -1]
    assert_equal {c d e} [r $c ZRANGE z:g -3 -1]
    assert_equal {a b} [r $c ZRANGE z:g -100 1]
    assert_equal {d e} [r $c ZRANGE z:g 3 100]
    assert_equal {} [r $c ZRANGE z:g 3 1]
    assert_equal {} [r $c ZRANGE z:g 5 10]
    assert_equal {e 5 d 4} [r $c ZRANGE z:g 0 1 REV WITHSCORES]
    assert_equal {e d c} [r $c ZREVRANGE z:g 0 2]
    assert_equal {b 2 a 1} [r $c ZREVRANGE z:g -2 -1 WITHSCORES]
    assert_equal "*0\r\n" [rraw $c ZRANGE z:nokey 0 -1]
    assert_error "ERR value is not an integer or out of range" {r $c ZRANGE z:g a 1}
    assert_error "ERR value is not an integer or out of range" {r $c ZRANGE z:g 0 1.5}
}

test "ZRANGE BYSCORE with REV, LIMIT and WITHSCORES ($enc)" {
    zcreate $enc z:b -inf ninf 1 a 2 b 3 c 4 d 5 e 5 f 5 g inf pinf
    assert_equal {a b c} [r $c ZRANGE z:b 1 3 BYSCORE]
    assert_equal {b 2 c 3} [r $c ZRANGE z:b (1 3 BYSCORE WITHSCORES]
    assert_equal {c b} [r $c ZRANGE z:b 3 (1 BYSCORE REV]
    assert_equal {f g} [r $c ZRANGE z:b 5 5 BYSCORE LIMIT 1 5]
    assert_equal {f e} [r $c ZRANGE z:b +inf -inf BYSCORE REV LIMIT 2 2]
    assert_equal {ninf a} [r $c ZRANGE z:b -inf 1 BYSCORE LIMIT 0 -1]
    assert_equal {} [r $c ZRANGE z:b -inf +inf BYSCORE LIMIT -1 5]
    assert_equal {} [r $c ZRANGE z:b -inf +inf BYSCORE LIMIT 2 0]
    assert_equal {} [r $c ZRANGE z:b -inf +inf BYSCORE LIMIT 100 1]
    assert_equal {} [r $c ZRANGE z:b 3 1 BYSCORE]
    assert_equal {} [r $c ZRANGE z:b (3 3 BYSCORE]
    assert_equal {a 1 b 2} [r $c ZRANGEBYSCORE z:b 1 2 WITHSCORES]
    assert_equal {b c} [r $c ZRANGEBYSCORE z:b 1 5 LIMIT 1 2]
    assert_equal {g f} [r $c ZREVRANGEBYSCORE z:b 5 (4 LIMIT 0 2]
    assert_equal {b 2 a 1} [r $c ZREVRANGEBYSCORE z:b 2 1 WITHSCORES]
    assert_equal {pinf} [r $c ZRANGEBYSCORE z:b (5 +inf]
    # Any negative count means no limit; counting it down overflowed (UBSan).
    assert_equal {e f g pinf} [r $c ZRANGE z:b 5 +inf BYSCORE LIMIT 0 -9223372036854775808]
    assert_equal {pinf g f e} [r $c ZREVRANGEBYSCORE z:b +inf 5 LIMIT 0 -9223372036854775807]
}

test "ZRANGE BYLEX with REV and LIMIT ($enc)" {
    zcreate $enc z:x 0 a 0 b 0 c 0 d 0 e 0 f
    assert_equal {a b c d e f} [r $c ZRANGE z:x - + BYLEX]
    assert_equal {b c} [r $c ZRANGE z:x \[b (d BYLEX]
    assert_equal {f e d} [r $c ZRANGE z:x + (c BYLEX REV]
    assert_equal {e d} [r $c ZRANGE z:x + - BYLEX REV LIMIT 1 2]
    assert_equal {b c} [r $c ZRANGEBYLEX z:x - + LIMIT 1 2]
    assert_equal {c b a} [r $c ZREVRANGEBYLEX z:x \[c -]
    assert_equal {} [r $c ZRANGEBYLEX z:x + -]
    assert_equal {} [r $c ZRANGEBYLEX z:x (c \[c]
    assert_equal {a b c d e f} [r $c ZRANGEBYLEX z:x \[ +]
    assert_equal {} [r $c ZRANGEBYLEX z:x - + LIMIT -1 10]
    assert_equal {} [r $c ZRANGEBYLEX z:x (f +]
    assert_equal {c d e f} [r $c ZRANGEBYLEX z:x \[c + LIMIT 0 -9223372036854775808]
    assert_equal {f e d} [r $c ZRANGE z:x + (c BYLEX REV LIMIT 0 -9223372036854775807]
}

test "ZRANGE option errors ($enc)" {
    zcreate $enc z:oe 1 a 2 b
    set lim "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
    set wsl "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
    assert_error $lim {r $c ZRANGE z:oe 0 1 LIMIT 0 1}
    assert_error $lim {r $c ZREVRANGE z:oe 0 1 LIMIT 0 1}
    assert_error $wsl {r $c ZRANGE z:oe - + BYLEX WITHSCORES}
    assert_error $wsl {r $c ZRANGEBYLEX z:oe - + WITHSCORES}
    foreach args {
        {0 1 REV REV} {0 1 BYSCORE BYLEX} {0 1 LIMIT 1} {0 1 FOO} {0 1 BYSCORE BYSCORE}
    } {
        assert_error "ERR syntax error" {r $c ZRANGE z:oe {*}$args}
    }
    assert_error "ERR syntax error" {r $c ZREVRANGE z:oe 0 1 REV}
    assert_error "ERR syntax error" {r $c ZREVRANGE z:oe 0 1 BYSCORE}
    assert_error "ERR syntax error" {r $c ZRANGEBYSCORE z:oe 0 1 REV}
    assert_error "ERR syntax error" {r $c ZRANGEBYSCORE z:oe 0 1 BYLEX}
    assert_error "ERR value is not an integer or out of range" {r $c ZRANGE z:oe 0 1 BYSCORE LIMIT a 1}
    assert_error "ERR min or max is not a float" {r $c ZRANGE z:oe a 1 BYSCORE}
    assert_error "ERR min or max is not a float" {r $c ZRANGEBYSCORE z:oe 1 2x}
    assert_error "ERR min or max not valid string range item" {r $c ZRANGE z:oe a b BYLEX}
    assert_equal {} [r $c ZREVRANGEBYLEX z:oe - +] "reversed: max comes first"
    assert_error "ERR wrong number of arguments for 'zrange' command" {r $c ZRANGE z:oe 0}
}

test "RESP3: WITHSCORES replies member/score pairs ($enc)" {
    zcreate $enc z:p 1 a 2.5 b
    assert_equal "*2\r\n*2\r\n\$1\r\na\r\n,1\r\n*2\r\n\$1\r\nb\r\n,2.5\r\n" \
        [rraw $c3 ZRANGE z:p 0 -1 WITHSCORES]
    assert_equal "*1\r\n*2\r\n\$1\r\nb\r\n,2.5\r\n" [rraw $c3 ZRANGEBYSCORE z:p 2 3 WITHSCORES]
    assert_equal "*2\r\n\$1\r\na\r\n\$1\r\nb\r\n" [rraw $c3 ZRANGE z:p 0 -1]
    assert_equal "*4\r\n\$1\r\nb\r\n\$3\r\n2.5\r\n\$1\r\na\r\n\$1\r\n1\r\n" \
        [rraw $c ZREVRANGE z:p 0 -1 WITHSCORES]
}

test "ZRANGESTORE stores ranges and picks the destination's encoding ($enc)" {
    zcreate $enc z:src 1 a 2 b 3 c 4 d
    r $c SET z:dst old EX 100
    assert_equal 2 [r $c ZRANGESTORE z:dst z:src 1 2]
    assert_equal {b 2 c 3} [r $c ZRANGE z:dst 0 -1 WITHSCORES]
    assert_equal -1 [r $c TTL z:dst]
    assert_equal listpack [r $c OBJECT ENCODING z:dst]
    assert_equal 2 [r $c ZRANGESTORE z:dst z:src 4 (2 BYSCORE REV LIMIT 0 2]
    assert_equal {c d} [r $c ZRANGE z:dst 0 -1]
    assert_equal 3 [r $c ZRANGESTORE z:dst z:src \[b + BYLEX]
    assert_equal 0 [r $c ZRANGESTORE z:dst z:src 10 20 BYSCORE]
    assert_equal 0 [r $c EXISTS z:dst]
    assert_equal 0 [r $c ZRANGESTORE z:dst z:nokey 0 -1]
    assert_equal 1 [r $c ZRANGESTORE z:src z:src 0 0]
    assert_equal {a} [r $c ZRANGE z:src 0 -1]
    assert_error "ERR syntax error" {r $c ZRANGESTORE z:dst z:src 0 -1 WITHSCORES}
    r $c SET z:str x
    assert_error $::wrongtype {r $c ZRANGESTORE z:dst z:str 0 -1}
    assert_error "ERR wrong number of arguments for 'zrangestore' command" {r $c ZRANGESTORE z:dst z:src 0}
}

# ---------------------------------------------------------------------------
# ZREMRANGEBY*, pops
# ---------------------------------------------------------------------------

test "ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX ($enc)" {
    zcreate $enc z:rr 1 a 2 b 3 c 4 d 5 e 6 f
    assert_equal 1 [r $c ZREMRANGEBYRANK z:rr 0 0]
    assert_equal 2 [r $c ZREMRANGEBYRANK z:rr -2 -1]
    assert_equal 0 [r $c ZREMRANGEBYRANK z:rr 5 1]
    assert_equal 0 [r $c ZREMRANGEBYRANK z:rr 10 20]
    assert_equal {b c d} [r $c ZRANGE z:rr 0 -1]
    assert_equal 1 [r $c ZREMRANGEBYSCORE z:rr (2 3]
    assert_equal 0 [r $c ZREMRANGEBYSCORE z:rr 10 1]
    zcreate $enc z:rl 0 a 0 b 0 c 0 d
    assert_equal 2 [r $c ZREMRANGEBYLEX z:rl (a \[c]
    assert_equal 0 [r $c ZREMRANGEBYLEX z:rl + -]
    assert_equal {a d} [r $c ZRANGE z:rl 0 -1]
    assert_equal 2 [r $c ZREMRANGEBYLEX z:rl - +]
    assert_equal 0 [r $c EXISTS z:rl]
    assert_equal 2 [r $c ZREMRANGEBYSCORE z:rr -inf +inf]
    assert_equal 0 [r $c EXISTS z:rr]
    assert_equal 0 [r $c ZREMRANGEBYRANK z:rr 0 -1]
    assert_error "ERR value is not an integer or out of range" {r $c ZREMRANGEBYRANK z:rr a 1}
    assert_error "ERR min or max is not a float" {r $c ZREMRANGEBYSCORE z:rr a 1}
    assert_error "ERR min or max not valid string range item" {r $c ZREMRANGEBYLEX z:rr a b}
}

test "ZPOPMIN and ZPOPMAX with and without COUNT ($enc)" {
    zcreate $enc z:pp 1 a 2 b 3 c 4 d
    assert_equal {a 1} [r $c ZPOPMIN z:pp]
    assert_equal {d 4 c 3} [r $c ZPOPMAX z:pp 2]
    assert_equal "*0\r\n" [rraw $c ZPOPMIN z:pp 0]
    assert_equal "*0\r\n" [rraw $c ZPOPMIN z:nokey]
    assert_equal "*0\r\n" [rraw $c ZPOPMIN z:nokey 0]
    assert_equal {b 2} [r $c ZPOPMIN z:pp 10]
    assert_equal 0 [r $c EXISTS z:pp]
    assert_error "ERR value is out of range, must be positive" {r $c ZPOPMIN z:pp -1}
    assert_error "ERR value is out of range, must be positive" {r $c ZPOPMIN z:pp abc}
    assert_error "ERR syntax error" {r $c ZPOPMAX z:pp 1 2}
    zcreate $enc z:pp 1 a 2 b
    assert_equal "*2\r\n\$1\r\na\r\n,1\r\n" [rraw $c3 ZPOPMIN z:pp]
    assert_equal "*1\r\n*2\r\n\$1\r\nb\r\n,2\r\n" [rraw $c3 ZPOPMAX z:pp 5]
}

test "ZMPOP pops from the first non-empty key ($enc)" {
    r $c DEL z:m1
    zcreate $enc z:m2 1 a 2 b 3 c
    assert_equal {z:m2 {{a 1}}} [r $c ZMPOP 2 z:m1 z:m2 MIN]
    assert_equal {z:m2 {{c 3} {b 2}}} [r $c ZMPOP 2 z:m1 z:m2 max COUNT 10]
    assert_equal 0 [r $c EXISTS z:m2]
    assert_equal "*-1\r\n" [rraw $c ZMPOP 2 z:m1 z:m2 MIN]
    assert_equal "_\r\n" [rraw $c3 ZMPOP 2 z:m1 z:m2 MIN]
    zcreate $enc z:m2 1 a
    assert_equal "*2\r\n\$4\r\nz:m2\r\n*1\r\n*2\r\n\$1\r\na\r\n,1\r\n" [rraw $c3 ZMPOP 1 z:m2 MIN]
}

}
# (end of the per-encoding tests)

test "ZMPOP argument errors" {
    foreach {args err} {
        {0 k MIN} "ERR numkeys should be greater than 0"
        {-1 k MIN} "ERR numkeys should be greater than 0"
        {abc k MIN} "ERR numkeys should be greater than 0"
        {2 k MIN} "ERR syntax error"
        {9223372036854775807 k MIN} "ERR syntax error"
        {1 k MID} "ERR syntax error"
        {1 k MIN COUNT 0} "ERR count should be greater than 0"
        {1 k MIN COUNT abc} "ERR count should be greater than 0"
        {1 k MIN COUNT 1 COUNT 2} "ERR syntax error"
        {1 k MIN COUNT} "ERR syntax error"
        {1 k MIN FOO} "ERR syntax error"
    } {
        assert_error $err {r $c ZMPOP {*}$args}
    }
    r $c SET z:str x
    assert_error $wrongtype {r $c ZMPOP 2 z:nokey z:str MIN}
    assert_error "ERR wrong number of arguments for 'zmpop' command" {r $c ZMPOP 1 k}
}

test "WRONGTYPE from every sorted set command" {
    r $c SET z:str x
    foreach cmd {
        {ZADD z:str 1 a} {ZINCRBY z:str 1 a} {ZREM z:str a} {ZCARD z:str} {ZSCORE z:str a}
        {ZMSCORE z:str a} {ZRANK z:str a} {ZREVRANK z:str a} {ZCOUNT z:str 1 2}
        {ZLEXCOUNT z:str - +} {ZRANGE z:str 0 1} {ZREVRANGE z:str 0 1}
        {ZRANGEBYSCORE z:str 1 2} {ZREVRANGEBYSCORE z:str 2 1} {ZRANGEBYLEX z:str - +}
        {ZREVRANGEBYLEX z:str + -} {ZREMRANGEBYRANK z:str 0 1} {ZREMRANGEBYSCORE z:str 1 2}
        {ZREMRANGEBYLEX z:str - +} {ZPOPMIN z:str} {ZPOPMAX z:str 2} {BZPOPMIN z:str 0}
        {BZMPOP 0 1 z:str MIN} {ZUNION 1 z:str} {ZINTERSTORE d 1 z:str} {ZDIFF 1 z:str}
        {ZINTERCARD 1 z:str} {ZRANDMEMBER z:str} {ZRANDMEMBER z:str 2} {ZSCAN z:str 0}
    } {
        assert_error $wrongtype {r $c {*}$cmd}
    }
    assert_equal x [r $c GET z:str]
    assert_error "ERR value is not a valid float" {r $c ZADD z:str abc a}
    assert_error "ERR min or max is not a float" {r $c ZCOUNT z:str a b}
}

test "arity errors" {
    foreach {cmd args} {
        zadd {k 1} zincrby {k 1} zrem {k} zcard {} zcount {k 1} zlexcount {k -}
        zscore {k} zmscore {k} zrank {k} zrevrank {k a b} zrange {k 0} zrangestore {d k 0}
        zrevrange {k 0} zrangebyscore {k 0} zrevrangebyscore {k 0} zrangebylex {k -}
        zrevrangebylex {k +} zremrangebyrank {k 0} zremrangebyscore {k 0} zremrangebylex {k -}
        zpopmin {} zpopmax {} zmpop {1 k} bzpopmin {k} bzpopmax {k} bzmpop {0 1 k}
        zunion {1} zunionstore {d 1} zinter {1} zinterstore {d 1} zintercard {1} zdiff {1}
        zdiffstore {d 1} zrandmember {} zscan {k}
    } {
        assert_error "ERR wrong number of arguments for '$cmd' command" {r $c $cmd {*}$args}
    }
}

# ---------------------------------------------------------------------------
# Encodings and conversions
# ---------------------------------------------------------------------------

test "listpack converts to skiplist past 128 entries or a 64-byte member" {
    r $c DEL z:conv
    for {set i 0} {$i < 128} {incr i} { r $c ZADD z:conv $i m$i }
    assert_equal listpack [r $c OBJECT ENCODING z:conv]
    r $c ZADD z:conv 128 m128
    assert_equal skiplist [r $c OBJECT ENCODING z:conv]
    r $c ZREMRANGEBYRANK z:conv 0 100
    assert_equal skiplist [r $c OBJECT ENCODING z:conv] "never converts back by itself"
    r $c DEL z:conv
    r $c ZADD z:conv 1 [string repeat x 64]
    assert_equal listpack [r $c OBJECT ENCODING z:conv]
    r $c ZADD z:conv 2 [string repeat x 65]
    assert_equal skiplist [r $c OBJECT ENCODING z:conv]
    r $c DEL z:conv
    r $c ZADD z:conv 1 a 2 [string repeat y 65]
    assert_equal skiplist [r $c OBJECT ENCODING z:conv]
    assert_equal [list a 1 [string repeat y 65] 2] [r $c ZRANGE z:conv 0 -1 WITHSCORES]
    r $c DEL z:conv
    r $c ZADD z:conv 1 [string repeat z 65] 2 a
    assert_equal skiplist [r $c OBJECT ENCODING z:conv] "the first member's length decides"
}

test "zset-max-listpack-* limits are read at every insert" {
    r $c DEL z:cfg
    r $c CONFIG SET zset-max-listpack-entries 3
    r $c ZADD z:cfg 1 a 2 b 3 c
    assert_equal listpack [r $c OBJECT ENCODING z:cfg]
    r $c ZINCRBY z:cfg 1 d
    assert_equal skiplist [r $c OBJECT ENCODING z:cfg]
    r $c CONFIG SET zset-max-listpack-value 2
    r $c DEL z:cfg
    r $c ZADD z:cfg 1 aa
    assert_equal listpack [r $c OBJECT ENCODING z:cfg]
    r $c ZADD z:cfg 1 aaa
    assert_equal skiplist [r $c OBJECT ENCODING z:cfg]
    zdefaults
}

test "Z*STORE results are compacted to a listpack when small" {
    zcreate skiplist z:big1 1 a 2 b
    assert_equal 2 [r $c ZUNIONSTORE z:out 1 z:big1]
    assert_equal listpack [r $c OBJECT ENCODING z:out]
    assert_equal 2 [r $c ZRANGESTORE z:out z:big1 0 -1]
    assert_equal listpack [r $c OBJECT ENCODING z:out]
    r $c DEL z:big2
    for {set i 0} {$i < 200} {incr i} { r $c ZADD z:big2 $i m$i }
    assert_equal 200 [r $c ZINTERSTORE z:out 1 z:big2]
    assert_equal skiplist [r $c OBJECT ENCODING z:out]
    assert_equal 129 [r $c ZRANGESTORE z:out z:big2 0 128]
    assert_equal skiplist [r $c OBJECT ENCODING z:out]
    assert_equal 128 [r $c ZRANGESTORE z:out z:big2 0 127]
    assert_equal listpack [r $c OBJECT ENCODING z:out]
    assert_equal 129 [r $c ZRANGESTORE z:out z:big2 0 128 BYSCORE]
    assert_equal skiplist [r $c OBJECT ENCODING z:out]
    r $c ZADD z:long 1 [string repeat q 70]
    assert_equal 1 [r $c ZDIFFSTORE z:out 1 z:long]
    assert_equal skiplist [r $c OBJECT ENCODING z:out]
}

test "both encodings give the same answers (random operations)" {
    set ok 1
    for {set round 0} {$round < 3} {incr round} {
        zcreate listpack z:lp 0 seed
        zcreate skiplist z:sl 0 seed
        for {set i 0} {$i < 120} {incr i} {
            set m [format m%02d [expr {int(rand() * 60)}]]
            set s [expr {int(rand() * 20) - 10}]
            switch [expr {int(rand() * 4)}] {
                0 - 1 { set cmd [list ZADD KEY $s $m] }
                2 { set cmd [list ZINCRBY KEY 0.5 $m] }
                3 { set cmd [list ZREM KEY $m] }
            }
            foreach k {z:lp z:sl} { r $c {*}[lreplace $cmd 1 1 $k] }
        }
        foreach q {
            {ZRANGE KEY 0 -1 WITHSCORES} {ZRANGE KEY -5 -2} {ZRANGE KEY 2 -3 REV WITHSCORES}
            {ZRANGE KEY (-3 5 BYSCORE WITHSCORES} {ZRANGE KEY 5 -inf BYSCORE REV LIMIT 2 4}
            {ZCOUNT KEY -2 (4} {ZRANK KEY m10} {ZREVRANK KEY m30}
            {ZCARD KEY} {ZMSCORE KEY m01 m02 m03 seed}
        } {
            set a [r $c {*}[lreplace $q 1 1 z:lp]]
            set b [r $c {*}[lreplace $q 1 1 z:sl]]
            if {$a ne $b} { set ok 0; puts "mismatch on $q: $a vs $b" }
        }
        foreach q {{ZREMRANGEBYSCORE KEY -1 2} {ZREMRANGEBYRANK KEY 3 7}} {
            assert_equal [r $c {*}[lreplace $q 1 1 z:lp]] [r $c {*}[lreplace $q 1 1 z:sl]] $q
        }
        assert_equal [r $c ZRANGE z:lp 0 -1 WITHSCORES] [r $c ZRANGE z:sl 0 -1 WITHSCORES]
        assert_equal listpack [r $c OBJECT ENCODING z:lp]
        assert_equal skiplist [r $c OBJECT ENCODING z:sl]
    }
    assert {$ok}
}

test "both encodings give the same lex answers (equal scores)" {
    zcreate listpack z:lp 0 seed
    zcreate skiplist z:sl 0 seed
    for {set i 0} {$i < 100} {incr i} {
        set m [format m%02d [expr {int(rand() * 60)}]]
        set cmd [expr {rand() < 0.7 ? "ZADD" : "ZREM"}]
        foreach k {z:lp z:sl} {
            if {$cmd eq "ZADD"} { r $c ZADD $k 0 $m } else { r $c ZREM $k $m }
        }
    }
    foreach q {
        {ZRANGE KEY [m10 (m40 BYLEX} {ZRANGE KEY + [m20 BYLEX REV LIMIT 1 3}
        {ZLEXCOUNT KEY (m05 [m50} {ZRANGEBYLEX KEY - (m30 LIMIT 2 5} {ZREVRANGEBYLEX KEY (m50 -}
        {ZREMRANGEBYLEX KEY [m30 (m45} {ZRANGE KEY 0 -1}
    } {
        assert_equal [r $c {*}[lreplace $q 1 1 z:lp]] [r $c {*}[lreplace $q 1 1 z:sl]] $q
    }
}

test "COPY, RENAME and DEBUG-free round trips keep members and encoding" {
    zcreate skiplist z:cp 1 a 2.5 b
    assert_equal 1 [r $c COPY z:cp z:cp2]
    assert_equal {a 1 b 2.5} [r $c ZRANGE z:cp2 0 -1 WITHSCORES]
    assert_equal skiplist [r $c OBJECT ENCODING z:cp2]
    r $c ZADD z:cp2 3 c
    assert_equal 2 [r $c ZCARD z:cp] "the copy is independent"
    zcreate listpack z:cp 1 a
    assert_equal 1 [r $c COPY z:cp z:cp3]
    assert_equal listpack [r $c OBJECT ENCODING z:cp3]
    assert_equal zset [r $c TYPE z:cp3]
    assert_equal OK [r $c RENAME z:cp3 z:cp4]
    assert_equal {a} [r $c ZRANGE z:cp4 0 -1]
}

# ---------------------------------------------------------------------------
# ZUNION, ZINTER, ZDIFF, ZINTERCARD
# ---------------------------------------------------------------------------

foreach enc {listpack skiplist} {
test "ZUNION/ZINTER/ZDIFF with WEIGHTS, AGGREGATE and WITHSCORES ($enc)" {
    zcreate $enc z:u1 1 a 2 b 3 c
    zcreate $enc z:u2 1 b 2 c 3 d
    assert_equal {a 1 b 3 d 3 c 5} [r $c ZUNION 2 z:u1 z:u2 WITHSCORES]
    assert_equal {a b d c} [r $c ZUNION 3 z:u1 z:u2 z:nokey]
    assert_equal {a 2 b 7 d 9 c 12} [r $c ZUNION 2 z:u1 z:u2 WEIGHTS 2 3 WITHSCORES]
    assert_equal {a 1 b 1 c 2 d 3} [r $c ZUNION 2 z:u1 z:u2 AGGREGATE MIN WITHSCORES]
    assert_equal {a 1 b 2 c 3 d 3} [r $c ZUNION 2 z:u1 z:u2 aggregate max withscores]
    assert_equal {b 3 c 5} [r $c ZINTER 2 z:u1 z:u2 WITHSCORES]
    assert_equal {b 1 c 1} [r $c ZINTER 2 z:u1 z:u2 WEIGHTS 1 -1 AGGREGATE SUM WITHSCORES]
    assert_equal {} [r $c ZINTER 2 z:u1 z:nokey]
    assert_equal {a 1} [r $c ZDIFF 2 z:u1 z:u2 WITHSCORES]
    assert_equal {a b c} [r $c ZDIFF 2 z:u1 z:nokey]
    assert_equal {} [r $c ZDIFF 2 z:nokey z:u1]
    assert_equal {} [r $c ZDIFF 2 z:u1 z:u1]
    assert_equal {a 2 b 4 c 6} [r $c ZUNION 2 z:u1 z:u1 WITHSCORES]
    assert_equal "*2\r\n*2\r\n\$1\r\nb\r\n,3\r\n*2\r\n\$1\r\nc\r\n,5\r\n" [rraw $c3 ZINTER 2 z:u1 z:u2 WITHSCORES]
}

test "ZUNIONSTORE/ZINTERSTORE/ZDIFFSTORE ($enc)" {
    zcreate $enc z:u1 1 a 2 b 3 c
    zcreate $enc z:u2 1 b 2 c 3 d
    r $c SET z:ud x EX 100
    assert_equal 4 [r $c ZUNIONSTORE z:ud 2 z:u1 z:u2 WEIGHTS 1 2]
    assert_equal {a 1 b 4 d 6 c 7} [r $c ZRANGE z:ud 0 -1 WITHSCORES]
    assert_equal -1 [r $c TTL z:ud]
    assert_equal 2 [r $c ZINTERSTORE z:ud 2 z:u1 z:u2 AGGREGATE MAX]
    assert_equal {b 2 c 3} [r $c ZRANGE z:ud 0 -1 WITHSCORES]
    assert_equal 1 [r $c ZDIFFSTORE z:ud 2 z:u1 z:u2]
    assert_equal {a 1} [r $c ZRANGE z:ud 0 -1 WITHSCORES]
    assert_equal 0 [r $c ZINTERSTORE z:ud 2 z:u1 z:nokey]
    assert_equal 0 [r $c EXISTS z:ud]
    assert_equal 3 [r $c ZUNIONSTORE z:u1 1 z:u1 WEIGHTS 2]
    assert_equal {a 2 b 4 c 6} [r $c ZRANGE z:u1 0 -1 WITHSCORES]
}
}

test "ZUNION/ZINTER infinities: inf + -inf is 0, NaN products count as 0" {
    r $c DEL z:i1 z:i2
    r $c ZADD z:i1 inf a -inf b 1 c
    r $c ZADD z:i2 -inf a -inf b 2 c
    assert_equal {b -inf a 0 c 3} [r $c ZUNION 2 z:i1 z:i2 WITHSCORES]
    assert_equal {a 0 b 0 c 0} [r $c ZUNION 2 z:i1 z:i2 WEIGHTS 0 0 WITHSCORES]
    assert_equal {a -inf b -inf c 1} [r $c ZINTER 2 z:i1 z:i2 AGGREGATE MIN WITHSCORES]
    assert_equal {b -inf c 2 a inf} [r $c ZINTER 2 z:i1 z:i2 AGGREGATE MAX WITHSCORES]
    assert_equal {a -inf c -1 b inf} [r $c ZUNION 1 z:i1 WEIGHTS -1 WITHSCORES]
}

test "ZUNION/ZINTER/ZDIFF/ZINTERCARD argument errors" {
    r $c DEL z:e1
    r $c ZADD z:e1 1 a
    r $c SET z:str x
    foreach {cmd err} {
        {ZUNION 0 z:e1} "ERR at least 1 input key is needed for 'zunion' command"
        {ZINTERSTORE d 0 z:e1} "ERR at least 1 input key is needed for 'zinterstore' command"
        {ZINTERCARD -1 z:e1} "ERR at least 1 input key is needed for 'zintercard' command"
        {ZDIFF abc z:e1} "ERR value is not an integer or out of range"
        {ZUNION 3 z:e1} "ERR syntax error"
        {ZUNION 2 z:e1 z:nokey WEIGHTS 1} "ERR syntax error"
        {ZUNION 2 z:e1 z:nokey WEIGHTS 1 abc} "ERR weight value is not a float"
        {ZUNION 1 z:e1 WEIGHTS nan} "ERR weight value is not a float"
        {ZUNION 1 z:e1 AGGREGATE avg} "ERR syntax error"
        {ZUNION 1 z:e1 AGGREGATE} "ERR syntax error"
        {ZUNIONSTORE d 1 z:e1 WITHSCORES} "ERR syntax error"
        {ZDIFF 1 z:e1 WEIGHTS 1} "ERR syntax error"
        {ZDIFF 1 z:e1 AGGREGATE SUM} "ERR syntax error"
        {ZINTERCARD 1 z:e1 WITHSCORES} "ERR syntax error"
        {ZINTERCARD 1 z:e1 LIMIT -1} "ERR LIMIT can't be negative"
        {ZINTERCARD 1 z:e1 LIMIT abc} "ERR LIMIT can't be negative"
        {ZINTERCARD 1 z:e1 WEIGHTS 1} "ERR syntax error"
        {ZUNION 1 z:str WEIGHTS abc} "WRONGTYPE*"
    } {
        assert_error $err {r $c {*}$cmd}
    }
    assert_equal {a 1} [r $c ZUNION 1 z:e1 WITHSCORES WITHSCORES]
}

test "ZINTERCARD counts, with and without LIMIT" {
    r $c DEL z:c1 z:c2
    r $c ZADD z:c1 1 a 2 b 3 c 4 d
    r $c ZADD z:c2 1 b 1 c 1 d 1 e
    assert_equal 3 [r $c ZINTERCARD 2 z:c1 z:c2]
    assert_equal 2 [r $c ZINTERCARD 2 z:c1 z:c2 LIMIT 2]
    assert_equal 3 [r $c ZINTERCARD 2 z:c1 z:c2 LIMIT 0]
    assert_equal 3 [r $c ZINTERCARD 2 z:c1 z:c2 LIMIT 10]
    assert_equal 0 [r $c ZINTERCARD 2 z:c1 z:nokey]
}

test "plain sets are accepted as inputs with score 1" {
    r $c DEL z:set z:zs
    r $c SADD z:set a b
    r $c ZADD z:zs 5 b 6 c
    assert_equal {a 1 b 6 c 6} [r $c ZUNION 2 z:set z:zs WITHSCORES]
    assert_equal {b 12} [r $c ZINTER 2 z:set z:zs WEIGHTS 2 2 WITHSCORES]
    assert_equal {a} [r $c ZDIFF 2 z:set z:zs]
    assert_equal 1 [r $c ZINTERCARD 2 z:set z:zs]
    r $c DEL z:iset z:hset
    r $c SADD z:iset 3 1 2
    assert_equal {1 2 2 2 3 2} [r $c ZUNION 2 z:iset z:iset WITHSCORES]
    # A growing hashtable set is walked and probed at once when named twice.
    for {set i 0} {$i < 40} {incr i} {
        r $c SADD z:hset h$i
        assert_equal [expr {$i + 1}] [r $c ZINTERCARD 2 z:hset z:hset]
    }
    assert_equal {h0 3} [lrange [r $c ZINTER 3 z:hset z:hset z:hset WITHSCORES] 0 1]
    assert_equal {} [r $c ZDIFF 2 z:hset z:hset]
    assert_equal 5 [r $c ZUNIONSTORE z:out 2 z:iset z:zs WEIGHTS 1 2]
    assert_equal {1 1 2 1 3 1 b 10 c 12} [r $c ZRANGE z:out 0 -1 WITHSCORES]
    assert_equal listpack [r $c OBJECT ENCODING z:out]
}

# ---------------------------------------------------------------------------
# ZRANDMEMBER, ZSCAN
# ---------------------------------------------------------------------------

foreach enc {listpack skiplist} {
test "ZRANDMEMBER properties ($enc)" {
    set members {}
    set args {}
    for {set i 0} {$i < 20} {incr i} { lappend members m$i; lappend args $i m$i }
    zcreate $enc z:rnd {*}$args
    assert {[lsearch -exact $members [r $c ZRANDMEMBER z:rnd]] >= 0}
    set r10 [r $c ZRANDMEMBER z:rnd 10]
    assert_equal 10 [llength [lsort -unique $r10]] "positive count: distinct"
    foreach m $r10 { assert {[lsearch -exact $members $m] >= 0} }
    set r5 [r $c ZRANDMEMBER z:rnd 5]
    assert_equal 5 [llength [lsort -unique $r5]]
    set all [r $c ZRANDMEMBER z:rnd 100 WITHSCORES]
    assert_equal 40 [llength $all]
    assert_equal {m19 19} [lrange $all 0 1] "the whole set, highest first"
    set many [r $c ZRANDMEMBER z:rnd -200]
    assert_equal 200 [llength $many] "negative count: repeats allowed"
    assert {[llength [lsort -unique $many]] > 10}
    foreach {m s} [r $c ZRANDMEMBER z:rnd -30 WITHSCORES] { assert_equal m$s $m }
    foreach {m s} [r $c ZRANDMEMBER z:rnd 7 WITHSCORES] { assert_equal m$s $m }
    assert_equal "*0\r\n" [rraw $c ZRANDMEMBER z:rnd 0]
    set p [r $c3 ZRANDMEMBER z:rnd 2 WITHSCORES]
    assert_equal 2 [llength $p]
    assert_equal 2 [llength [lindex $p 0]]
}
}

test "ZRANDMEMBER edge cases and errors" {
    assert_equal "\$-1\r\n" [rraw $c ZRANDMEMBER z:nokey]
    assert_equal "_\r\n" [rraw $c3 ZRANDMEMBER z:nokey]
    assert_equal "*0\r\n" [rraw $c ZRANDMEMBER z:nokey 5]
    assert_equal "*0\r\n" [rraw $c ZRANDMEMBER z:nokey -5 WITHSCORES]
    r $c DEL z:rr
    r $c ZADD z:rr 1 a
    assert_error "ERR value is not an integer or out of range" {r $c ZRANDMEMBER z:rr abc}
    assert_error "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807" \
        {r $c ZRANDMEMBER z:rr -9223372036854775808}
    assert_error "ERR value is out of range" {r $c ZRANDMEMBER z:rr 4611686018427387904 WITHSCORES}
    assert_error "ERR value is out of range" {r $c ZRANDMEMBER z:rr -4611686018427387904 WITHSCORES}
    assert_error "ERR syntax error" {r $c ZRANDMEMBER z:rr 1 foo}
    assert_error "ERR syntax error" {r $c ZRANDMEMBER z:rr 1 WITHSCORES foo}
    assert_equal {a 1 a 1} [r $c ZRANDMEMBER z:rr -2 WITHSCORES]
}

test "ZSCAN on a listpack returns everything at once with stored scores" {
    r $c DEL z:sc
    r $c ZADD z:sc 1 a 1.5 b 0.1 c -0 d 1e17 e inf f 5e18 g
    assert_equal {0 {d 0 c 0.10000000000000001 a 1 b 1.5 e 100000000000000000 g 5e+18 f inf}} \
        [r $c ZSCAN z:sc 0]
    assert_equal {0 {a 1}} [r $c ZSCAN z:sc 0 MATCH a* COUNT 1]
    assert_equal "*2\r\n\$1\r\n0\r\n*0\r\n" [rraw $c ZSCAN z:nokey 0]
    assert_equal "*2\r\n\$1\r\n0\r\n*0\r\n" [rraw $c ZSCAN z:nokey 0 FOO]
    assert_error "ERR invalid cursor" {r $c ZSCAN z:sc abc}
    assert_error "ERR syntax error" {r $c ZSCAN z:sc 0 COUNT 0}
    assert_error "ERR syntax error" {r $c ZSCAN z:sc 0 TYPE zset}
    assert_error "ERR syntax error" {r $c ZSCAN z:sc 0 MATCH}
    assert_error "ERR value is not an integer or out of range" {r $c ZSCAN z:sc 0 COUNT x}
}

test "ZSCAN on a skiplist walks every member with its score" {
    r $c DEL z:sc
    set expect {}
    for {set i 0} {$i < 300} {incr i} {
        r $c ZADD z:sc $i.5 m$i
        dict set expect m$i $i.5
    }
    r $c ZADD z:sc -0 zero inf big
    dict set expect zero -0
    dict set expect big inf
    set cursor 0
    set got {}
    while 1 {
        lassign [r $c ZSCAN z:sc $cursor COUNT 20] cursor items
        foreach {m s} $items { dict set got $m $s }
        if {$cursor == 0} break
    }
    assert_equal [dict size $expect] [dict size $got]
    dict for {m s} $expect { assert_equal $s [dict get $got $m] $m }
    lassign [r $c ZSCAN z:sc 0 MATCH m29? COUNT 1000] cursor items
    assert_equal 0 $cursor
    assert_equal 20 [llength $items]
}

# ---------------------------------------------------------------------------
# Blocking pops
# ---------------------------------------------------------------------------

set b1 [client $srv]
set b2 [client $srv]

proc blocked_clients {} { return [info_field $::c blocked_clients] }

test "BZPOPMIN/BZPOPMAX serve a non-empty key at once" {
    r $c DEL z:bk1 z:bk2
    r $c ZADD z:bk2 1 a 2 b
    assert_equal {z:bk2 a 1} [r $c BZPOPMIN z:bk1 z:bk2 0]
    assert_equal {z:bk2 b 2} [r $c BZPOPMAX z:bk1 z:bk2 0]
    assert_equal 0 [r $c EXISTS z:bk2]
    r $c ZADD z:bk2 1 a
    assert_equal "*3\r\n\$5\r\nz:bk2\r\n\$1\r\na\r\n,1\r\n" [rraw $c3 BZPOPMIN z:bk2 0]
    r $c ZADD z:bk2 1 a 2 b 3 c
    assert_equal {z:bk2 {{c 3} {b 2}}} [r $c BZMPOP 0 1 z:bk2 MAX COUNT 2]
    assert_equal {z:bk2 {{a 1}}} [r $c BZMPOP 0 2 z:bk1 z:bk2 MIN COUNT 5]
}

test "BZPOPMIN blocks and wakes on ZADD from another client" {
    r $c DEL z:bw
    send_cmd $b1 BZPOPMIN z:bw 0
    wait_for {[blocked_clients] == 1}
    r $c ZADD z:bw 2 b 1 a
    assert_equal {z:bw a 1} [read_reply $b1]
    assert_equal {b} [r $c ZRANGE z:bw 0 -1]
    send_cmd $b1 BZPOPMAX z:bw2 z:bw3 0
    wait_for {[blocked_clients] == 1}
    r $c ZADD z:bw3 5 x 6 y
    assert_equal {z:bw3 y 6} [read_reply $b1]
}

test "BZMPOP blocks and wakes with up to COUNT elements" {
    r $c DEL z:bm
    send_cmd $b1 BZMPOP 0 2 z:bm z:other MIN COUNT 3
    wait_for {[blocked_clients] == 1}
    r $c ZADD z:bm 1 a 2 b
    assert_equal {z:bm {{a 1} {b 2}}} [read_reply $b1]
    assert_equal 0 [r $c EXISTS z:bm]
}

test "blocked clients are served in arrival order" {
    r $c DEL z:ord
    send_cmd $b1 BZPOPMIN z:ord 0
    wait_for {[blocked_clients] == 1}
    send_cmd $b2 BZPOPMIN z:ord 0
    wait_for {[blocked_clients] == 2}
    r $c ZADD z:ord 1 a
    assert_equal {z:ord a 1} [read_reply $b1]
    assert_equal 1 [blocked_clients]
    r $c ZADD z:ord 2 b 3 c
    assert_equal {z:ord b 2} [read_reply $b2]
    assert_equal {c} [r $c ZRANGE z:ord 0 -1]
}

test "a waiter is served from the key that became ready first" {
    r $c DEL z:r1 z:r2
    send_cmd $b1 BZPOPMIN z:r1 z:r2 0
    wait_for {[blocked_clients] == 1}
    r $c MULTI
    r $c ZADD z:r2 2 b
    r $c ZADD z:r1 1 a
    r $c EXEC
    assert_equal {z:r2 b 2} [read_reply $b1]
    assert_equal {a} [r $c ZRANGE z:r1 0 -1]
}

test "a waiter is not woken by a key of another type" {
    r $c DEL z:wt
    send_cmd $b1 BZPOPMIN z:wt 0
    wait_for {[blocked_clients] == 1}
    r $c SET z:wt x
    r $c DEL z:wt
    assert_equal 1 [blocked_clients]
    r $c ZADD z:wt 7 q
    assert_equal {z:wt q 7} [read_reply $b1]
}

test "blocking pop timeouts reply a null array" {
    r $c DEL z:to
    set t0 [clock milliseconds]
    assert_equal "*-1\r\n" [rraw $b1 BZPOPMIN z:to 0.2]
    assert {[clock milliseconds] - $t0 >= 150}
    assert_equal "*-1\r\n" [rraw $b1 BZMPOP 0.1 1 z:to MAX]
    set b3 [client $srv -resp 3]
    assert_equal "_\r\n" [rraw $b3 BZPOPMAX z:to 0.1]
    assert_equal "_\r\n" [rraw $b3 BZMPOP 0.1 1 z:to MIN COUNT 2]
    close_client $b3
}

test "blocking pop argument errors" {
    assert_error "ERR timeout is not a float or out of range" {r $c BZPOPMIN z:x abc}
    assert_error "ERR timeout is negative" {r $c BZPOPMIN z:x -1}
    assert_error "ERR timeout is not a float or out of range" {r $c BZMPOP abc 1 z:x MIN}
    assert_error "ERR numkeys should be greater than 0" {r $c BZMPOP abc 0 z:x MIN}
    assert_error "ERR syntax error" {r $c BZMPOP 0 1 z:x MID}
    assert_error "ERR count should be greater than 0" {r $c BZMPOP 0 1 z:x MIN COUNT 0}
}

test "blocking pops inside MULTI do not block" {
    r $c DEL z:mu
    r $c MULTI
    r $c BZPOPMIN z:mu 0
    r $c BZMPOP 0 1 z:mu MIN
    assert_equal {{} {}} [r $c EXEC]
}

# The stream replicas and the AOF read (cairn's DEBUG PROPAGATED); the
# expected forms are what redis-server 7.0.15 writes to its AOF.
proc zresp {args} {
    set out "*[llength $args]\r\n"
    foreach a $args { append out "\$[string length $a]\r\n$a\r\n" }
    return $out
}

test "propagation: pops replay as ZPOPMIN/ZPOPMAX with the popped count" {
    if {[catch {r $c DEBUG PROPAGATED}]} { skip_test "no DEBUG PROPAGATED (not cairn)" }
    r $c SELECT 0
    r $c DEL z:pk z:pk2
    r $c DEBUG PROPAGATED
    r $c ZADD z:pk 1 a 2 b 3 c 4 d 5 e
    r $c ZMPOP 1 z:pk MIN
    r $c ZMPOP 2 z:nokey z:pk MAX COUNT 10
    r $c ZADD z:pk 1 a 2 b 3 c
    r $c BZPOPMIN z:pk 0
    r $c BZMPOP 0 1 z:pk MAX
    r $c BZMPOP 0 1 z:pk MAX COUNT 7
    r $c ZPOPMIN z:nokey
    r $c ZADD z:pk 1 a
    r $c ZPOPMIN z:pk 0
    r $c ZADD z:pk NX 5 a
    r $c ZINCRBY z:pk 1 a
    r $c ZPOPMAX z:pk 3
    send_cmd $b1 BZMPOP 0 1 z:pk2 MIN COUNT 3
    wait_for {[blocked_clients] == 1}
    r $c ZADD z:pk2 7 x 8 y
    assert_equal {z:pk2 {{x 7} {y 8}}} [read_reply $b1]
    send_cmd $b1 BZPOPMAX z:pk2 0
    wait_for {[blocked_clients] == 1}
    r $c ZADD z:pk2 9 z
    assert_equal {z:pk2 z 9} [read_reply $b1]
    set want [zresp ZADD z:pk 1 a 2 b 3 c 4 d 5 e][zresp ZPOPMIN z:pk 1][zresp ZPOPMAX z:pk 4]
    append want [zresp ZADD z:pk 1 a 2 b 3 c][zresp ZPOPMIN z:pk][zresp ZPOPMAX z:pk 1]
    append want [zresp ZPOPMAX z:pk 1][zresp ZADD z:pk 1 a][zresp ZINCRBY z:pk 1 a]
    append want [zresp ZPOPMAX z:pk 3][zresp ZADD z:pk2 7 x 8 y][zresp ZPOPMIN z:pk2 2]
    append want [zresp ZADD z:pk2 9 z][zresp ZPOPMAX z:pk2]
    assert_equal $want [r $c DEBUG PROPAGATED]
}

close_client $b1
close_client $b2

zdefaults
finish
