# scripting_libs.tcl -- the cmsgpack and struct libraries scripts see:
# every reply (packed bytes, decoded values, error text) compared byte for
# byte with redis-server's embedded copies, over fixed edge cases and over
# seeded random and malformed inputs; the server must survive them all.
# CAIRN_LIBS_SEED picks another random seed (the one used is printed).

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
set ref [start_server -binary $::cairn(reference)]
set rc [client $ref]

set seed [::cairn_h::envget CAIRN_LIBS_SEED [expr {[clock milliseconds] % 100000}]]
puts "scripting_libs seed $seed"
expr {srand($seed)}

# Both servers give the same raw reply to cmd.
proc same {cmd {what ""}} {
    set want [rraw $::rc {*}$cmd]
    set got [rraw $::c {*}$cmd]
    if {$want ne $got} {
        error "[string range $cmd 0 300] $what:\n redis: [string range $want 0 300]\n cairn: [string range $got 0 300]"
    }
}

proc rnd {n} { return [expr {int(rand() * $n)}] }

# A Lua helper both servers run: decoded values as text, table keys sorted
# (pairs() order is not part of either library's contract).
set dump {
local function dump(v, d)
  local t = type(v)
  if t == 'table' then
    if d > 40 then return '...' end
    local ks = {}
    for k, x in pairs(v) do
      local kk = type(k) == 'table' and 'table' or dump(k, d + 1)
      ks[#ks + 1] = kk .. '=' .. dump(x, d + 1)
    end
    table.sort(ks)
    return '{' .. table.concat(ks, ',') .. '}'
  elseif t == 'number' then return string.format('n:%.17g', v)
  else return t .. ':' .. tostring(v) end
end
local function show(ok, ...)
  if not ok then return {err = (...)} end
  local o = {}
  for i = 1, select('#', ...) do o[i] = dump((select(i, ...)), 0) end
  return table.concat(o, ' | ')
end
}

set values {
    0 1 -1 127 128 -32 -33 -128 -129 255 256 65535 65536 -32768 -32769
    4294967295 4294967296 -2147483648 -2147483649 2^53 2^63 -2^63 2^64 -2^64
    1.5 0.1 -0.1 1/0 -1/0 0/0 3.4e38 3.5e38 1e-45 1e-300 1e300
    'x' '' "string.rep('a',31)" "string.rep('a',32)" "string.rep('a',255)"
    "string.rep('a',256)" "string.rep('a',65535)" "string.rep('a',65536)"
    true false nil {{}} {{1,2,3}} {{1,nil,3}} {{[2]=1}} {{a=1}} {{[0]=1}} {{[1.5]=1}}
    {{[-1]=1}} {{1,2,a=3}} {{[2^31]=1}} {{[2^31-1]=1}} {{[true]=false}}
    {{x={y={z={1,2,{a='b'}}}}}} {{{{{{{{{{{{{{{{{{{1}}}}}}}}}}}}}}}}}}}
    print "coroutine.create(function() end)"
    "(function() local t={} for i=1,16 do t[i]=i end return t end)()"
    "(function() local t={} for i=1,65536 do t[i]=i end return t end)()"
    "(function() local t={} for i=1,17 do t['k'..i]=i end return t end)()"
    "(function() local t={} t[1]=t return t end)()"
    "(function() local t={} for i=1,100 do t[i]=i end t[50]=nil return t end)()"
    "(function() local t={} for i=1,100 do t[i]=i end t[100]=nil return t end)()"
}

test "cmsgpack.pack encodes values as redis-server does, byte for byte" {
    foreach v $values {
        same [list EVAL "return cmsgpack.pack($v)" 0]
        same [list EVAL "return cmsgpack.pack($v, $v, 1)" 0]
        same [list EVAL "$dump return show(pcall(cmsgpack.unpack, cmsgpack.pack($v)))" 0]
        same [list EVAL "return cmsgpack.pack(cmsgpack.unpack(cmsgpack.pack($v)))" 0]
    }
    foreach s {
        "return cmsgpack.pack()"
        "return cmsgpack.pack(unpack((function() local t={} for i=1,7990 do t[i]=i end return t end)()))"
        "return {cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._COPYRIGHT, cmsgpack._DESCRIPTION}"
        "cmsgpack.pack = nil"
    } {
        same [list EVAL $s 0]
    }
}

test "cmsgpack unpack, unpack_one, unpack_limit: arguments, offsets and errors" {
    set scripts {
        "return {cmsgpack.unpack_one()}"
        "return {cmsgpack.unpack()}"
        "return {cmsgpack.unpack(12)}"
        "return {cmsgpack.unpack_limit({}, 1, 2)}"
        "return {cmsgpack.unpack_one('\\1\\2', 'x')}"
        "return {cmsgpack.unpack_one('\\1\\2', '1')}"
        "return {cmsgpack.unpack_limit('\\1\\2')}"
        "return {cmsgpack.unpack('\\129\\192\\1')}"
        "return {cmsgpack.unpack('\\129\\203\\127\\248\\0\\0\\0\\0\\0\\0\\1')}"
        "return {cmsgpack.unpack('\\207\\255\\255\\255\\255\\255\\255\\255\\255')}"
        "return tostring(cmsgpack.unpack('\\207\\128\\0\\0\\0\\0\\0\\0\\0'))"
        "return tostring(cmsgpack.unpack('\\211\\128\\0\\0\\0\\0\\0\\0\\0'))"
        "local s = cmsgpack.pack(1, 'a', {2}) local o, out = 0, {} repeat local v o, v = cmsgpack.unpack_one(s, o) out[#out+1] = type(v) until o == -1 return out"
    }
    foreach v {0 1 2 3 5 -1 2^31 2^32 2^32+1 -2^32 2^40+1 2^31-1} {
        lappend scripts "return {cmsgpack.unpack_one('\\1\\2\\3', $v)}" \
            "return {cmsgpack.unpack_limit('\\1\\2\\3', $v)}" \
            "return {cmsgpack.unpack_limit('\\1\\2\\3', $v, 1)}" \
            "return {cmsgpack.unpack_limit('\\1\\2\\3', 1, $v)}"
    }
    foreach s $scripts { same [list EVAL $s 0] }
}

test "cmsgpack: deep nesting and many values hit the same stack limits" {
    set s "$dump return show(pcall(function() return select('#', cmsgpack.unpack(ARGV\[1\])) end))"
    foreach n {3990 3999 4000 4001 7997 7998 7999 8000 20000} {
        same [list EVAL $s 0 "[string repeat \x91 $n]\x01"] "arrays $n deep"
        same [list EVAL $s 0 "[string repeat \x81\x01 $n]\x01"] "maps $n deep"
        same [list EVAL $s 0 "[string repeat \xdc\x00\x01 $n]\x01"] "array16 $n deep"
        same [list EVAL $s 0 [string repeat \x01 $n]] "$n values"
        same [list EVAL "return #{cmsgpack.unpack_limit(ARGV\[1\], $n)}" 0 [string repeat \x01 9000]]
    }
}

# Random MessagePack-ish bytes: valid encodings of every type (map keys
# short scalars, so both servers' tables order them alike), invalid type
# bytes, declared lengths that overrun, and huge counts.
proc mp_int {tag bytes} {
    set s [binary format c $tag]
    for {set i 0} {$i < $bytes} {incr i} { append s [binary format c [rnd 256]] }
    return $s
}
proc mp_gen {depth {key 0}} {
    set max [expr {$key ? 32 : 300}]
    set k [rnd 18]
    if {$key && $k in {3 4 12 13}} { set k 0 }
    if {$depth > 5 && $k in {3 4 12 13}} { set k 1 }
    switch $k {
        0 { return [binary format c [rnd 128]] }
        1 { return [binary format c [expr {0xe0 + [rnd 32]}]] }
        2 { set n [rnd 40]; return "[binary format c [expr {0xa0 | min($n, 31)}]][string repeat x $n]" }
        3 {
            set n [rnd 5]; set s [binary format c [expr {0x90 | $n}]]
            for {set i 0} {$i < $n} {incr i} { append s [mp_gen [expr {$depth + 1}]] }
            return $s
        }
        4 {
            set n [rnd 4]; set s [binary format c [expr {0x80 | $n}]]
            for {set i 0} {$i < $n} {incr i} {
                append s [mp_gen [expr {$depth + 1}] 1] [mp_gen [expr {$depth + 1}]]
            }
            return $s
        }
        5 {
            set t [lindex {0xcc 0xcd 0xce 0xcf 0xd0 0xd1 0xd2 0xd3} [rnd 8]]
            return [mp_int $t [dict get {0xcc 1 0xcd 2 0xce 4 0xcf 8 0xd0 1 0xd1 2 0xd2 4 0xd3 8} $t]]
        }
        6 { return "\xca[binary format R [lindex {1.5 0.1 -0.0 1e38 3.0e-39} [rnd 5]]]" }
        7 { return "\xcb[binary format Q [lindex {1.5 0.1 -0.0 1e300 9.3e18 1.9e19 4.9e-324} [rnd 7]]]" }
        8 { return [binary format c [lindex {0xc0 0xc2 0xc3 0xc1 0xc4 0xc5 0xc6 0xc7 0xd4 0xd8} [rnd 10]]] }
        9 { set n [rnd $max]; return "\xd9[binary format c $n][string repeat y $n]" }
        10 { set n [rnd $max]; return "\xda[binary format S $n][string repeat z $n]" }
        11 { set n [rnd $max]; return "\xdb[binary format I $n][string repeat w $n]" }
        12 {
            set n [rnd 20]; set s "\xdc[binary format S $n]"
            for {set i 0} {$i < $n} {incr i} { append s [mp_gen [expr {$depth + 1}]] }
            return $s
        }
        13 {
            set n [rnd 5]; set s "\xdf[binary format I $n]"
            for {set i 0} {$i < $n} {incr i} {
                append s [mp_gen [expr {$depth + 1}] 1] [mp_gen [expr {$depth + 1}]]
            }
            return $s
        }
        14 { return [lindex {"\xdd\xff\xff\xff\xff" "\xdf\xff\xff\xff\xff" "\xdb\xff\xff\xff\xff"} [rnd 3]] }
        default { return [binary format c [rnd 256]] }
    }
}

test "cmsgpack decodes random and malformed input as redis-server does" {
    set all "$dump return show(pcall(cmsgpack.unpack, ARGV\[1\]))"
    set one "$dump return show(pcall(cmsgpack.unpack_one, ARGV\[1\], tonumber(ARGV\[2\])))"
    set lim "$dump return show(pcall(cmsgpack.unpack_limit, ARGV\[1\], tonumber(ARGV\[3\]), tonumber(ARGV\[2\])))"
    for {set i 0} {$i < 600} {incr i} {
        set s ""
        for {set j [expr {1 + [rnd 3]}]} {$j > 0} {incr j -1} { append s [mp_gen 0] }
        switch [rnd 4] {
            1 { set s [string range $s 0 [expr {[rnd [string length $s]] - 1}]] }
            2 {
                set p [rnd [string length $s]]
                set s [string replace $s $p $p [binary format c [rnd 256]]]
            }
        }
        set off [expr {[rnd [expr {[string length $s] + 3}]] - 1}]
        same [list EVAL $all 0 $s] "input [binary encode hex $s]"
        same [list EVAL $one 0 $s $off] "input [binary encode hex $s]"
        same [list EVAL $lim 0 $s $off [expr {[rnd 5] - 1}]] "input [binary encode hex $s]"
        same [list EVAL "return cmsgpack.unpack(ARGV\[1\])" 0 $s] "input [binary encode hex $s]"
    }
    assert_equal PONG [r $c PING]
}

set struct_formats {
    b B h H l L T i I i1 i3 I3 i8 i9 I16 i32 i33 i0 I0 f d c1 c3 c0 s x
    >i4 <i4 !i4 !4i8 !2d !3i !0i !16bd >!8bhd {< > !} q # bq ! !8 i99999999999
    c99999999999 {b c0} Bc0 hc0 bxc0 sc0 i1i2i3i4 !8bi3h {!4 b i3 h d f} T!T {  } \xff ll xcx
    c2s iLs I22is7l
}
set struct_args {
    0 1 -1 127 128 255 256 -129 32767 -32768 65536 2^31 -2^31 2^32 2^53 2^63 -2^63 2^64
    -2^64 1e300 -1e300 1/0 -1/0 0/0 1.5 -1.5 0.1 3.4e38 1e39 '12' 'x' nil {{}}
    '' 'a' 'abc' 'abcdef' 'a\\0b' "string.rep('q',40)"
}
set struct_data [list "" \x01 \x03abc [string repeat \xff 10] abc\0def\0 "\x80[string repeat \0 40]" \
                     [string repeat \x7f 40] \x02ab\x05abcdefgh 2ab]

test "struct.pack and struct.size match redis-server, errors included" {
    foreach f $struct_formats {
        same [list EVAL "return struct.size(ARGV\[1\])" 0 $f]
        foreach v $struct_args {
            same [list EVAL "return struct.pack(ARGV\[1\], $v)" 0 $f]
            same [list EVAL "return struct.pack(ARGV\[1\], $v, $v, $v)" 0 $f]
        }
    }
    foreach s {"return struct.pack()" "return struct.unpack()" "return struct.unpack('b')"
               "return struct.size()" "return struct.size(1)" "return struct.pack(12, 1)"
               "struct.x = 1"} {
        same [list EVAL $s 0]
    }
}

test "struct.unpack matches redis-server, with offsets and short data" {
    foreach f $struct_formats {
        foreach d $struct_data {
            foreach pos {"" 1 2 0 -1 5 100 2.5 '3' 'x'} {
                set p [expr {$pos eq "" ? "" : ", $pos"}]
                same [list EVAL "$dump return show(pcall(struct.unpack, ARGV\[1\], ARGV\[2\]$p))" 0 $f $d]
                same [list EVAL "return {struct.unpack(ARGV\[1\], ARGV\[2\]$p)}" 0 $f $d]
            }
        }
    }
}

test "struct: random formats over random data match redis-server" {
    set alphabet [split "bBhHlLTiIcsfdx<>! 0123456789q" ""]
    set un "$dump return show(pcall(struct.unpack, ARGV\[1\], ARGV\[2\]))"
    set rt "$dump local ok, s = pcall(struct.pack, ARGV\[1\], 1, -2, 300, 'abcdef', 2.5, 'xyz', 7, 8, 9)
            if not ok then return {err = s} end return {s, show(pcall(struct.unpack, ARGV\[1\], s))}"
    for {set i 0} {$i < 800} {incr i} {
        set f ""
        for {set j [expr {1 + [rnd 7]}]} {$j > 0} {incr j -1} { append f [lindex $alphabet [rnd [llength $alphabet]]] }
        set d ""
        for {set j [rnd 40]} {$j > 0} {incr j -1} { append d [binary format c [rnd 256]] }
        same [list EVAL "return struct.size(ARGV\[1\])" 0 $f]
        same [list EVAL $rt 0 $f]
        same [list EVAL $un 0 $f $d] "data [binary encode hex $d]"
    }
    assert_equal PONG [r $c PING]
}

finish
