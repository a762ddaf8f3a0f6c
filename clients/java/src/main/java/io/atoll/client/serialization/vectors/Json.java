package io.atoll.client.serialization.vectors;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON reader (RFC 8259) for test-vector files: objects become
 * {@link LinkedHashMap}s, arrays {@link ArrayList}s, numbers {@link BigDecimal}s (no
 * precision is lost), {@code null} becomes Java null.
 */
final class Json {
    private final String s;
    private int p;

    private Json(String s) {
        this.s = s;
    }

    /** Parses one JSON document. */
    static Object parse(String text) {
        Json j = new Json(text);
        j.ws();
        Object v = j.value(0);
        j.ws();
        if (j.p != j.s.length()) {
            throw j.error("trailing characters");
        }
        return v;
    }

    private IllegalArgumentException error(String msg) {
        int line = 1;
        for (int i = 0; i < Math.min(p, s.length()); i++) {
            if (s.charAt(i) == '\n') {
                line++;
            }
        }
        return new IllegalArgumentException("JSON " + msg + " at line " + line + " (offset " + p + ")");
    }

    private void ws() {
        while (p < s.length()) {
            char c = s.charAt(p);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                p++;
            } else {
                break;
            }
        }
    }

    private Object value(int depth) {
        if (depth > 512) {
            throw error("nesting too deep");
        }
        if (p >= s.length()) {
            throw error("unexpected end");
        }
        char c = s.charAt(p);
        switch (c) {
            case '{':
                return object(depth);
            case '[':
                return array(depth);
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw error("unexpected character '" + c + "'");
        }
    }

    private Object literal(String word, Object v) {
        if (!s.startsWith(word, p)) {
            throw error("invalid literal");
        }
        p += word.length();
        return v;
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> m = new LinkedHashMap<>();
        p++;
        ws();
        if (p < s.length() && s.charAt(p) == '}') {
            p++;
            return m;
        }
        while (true) {
            ws();
            if (p >= s.length() || s.charAt(p) != '"') {
                throw error("expected a member name");
            }
            String k = string();
            ws();
            expect(':');
            ws();
            if (m.containsKey(k)) {
                throw error("duplicate member \"" + k + "\"");
            }
            m.put(k, value(depth + 1));
            ws();
            if (p < s.length() && s.charAt(p) == ',') {
                p++;
                continue;
            }
            expect('}');
            return m;
        }
    }

    private List<Object> array(int depth) {
        List<Object> a = new ArrayList<>();
        p++;
        ws();
        if (p < s.length() && s.charAt(p) == ']') {
            p++;
            return a;
        }
        while (true) {
            ws();
            a.add(value(depth + 1));
            ws();
            if (p < s.length() && s.charAt(p) == ',') {
                p++;
                continue;
            }
            expect(']');
            return a;
        }
    }

    private void expect(char c) {
        if (p >= s.length() || s.charAt(p) != c) {
            throw error("expected '" + c + "'");
        }
        p++;
    }

    private String string() {
        p++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (p >= s.length()) {
                throw error("unterminated string");
            }
            char c = s.charAt(p++);
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                throw error("control character in string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (p >= s.length()) {
                throw error("unterminated escape");
            }
            char e = s.charAt(p++);
            switch (e) {
                case '"':
                case '\\':
                case '/':
                    sb.append(e);
                    break;
                case 'b':
                    sb.append('\b');
                    break;
                case 'f':
                    sb.append('\f');
                    break;
                case 'n':
                    sb.append('\n');
                    break;
                case 'r':
                    sb.append('\r');
                    break;
                case 't':
                    sb.append('\t');
                    break;
                case 'u':
                    if (p + 4 > s.length()) {
                        throw error("short unicode escape");
                    }
                    try {
                        sb.append((char) Integer.parseInt(s.substring(p, p + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw error("invalid unicode escape");
                    }
                    p += 4;
                    break;
                default:
                    throw error("invalid escape \\" + e);
            }
        }
    }

    private BigDecimal number() {
        int start = p;
        if (s.charAt(p) == '-') {
            p++;
        }
        if (p < s.length() && s.charAt(p) == '0') {
            p++;
        } else {
            digits();
        }
        if (p < s.length() && s.charAt(p) == '.') {
            p++;
            digits();
        }
        if (p < s.length() && (s.charAt(p) == 'e' || s.charAt(p) == 'E')) {
            p++;
            if (p < s.length() && (s.charAt(p) == '+' || s.charAt(p) == '-')) {
                p++;
            }
            digits();
        }
        return new BigDecimal(s.substring(start, p));
    }

    private void digits() {
        int start = p;
        while (p < s.length() && s.charAt(p) >= '0' && s.charAt(p) <= '9') {
            p++;
        }
        if (p == start) {
            throw error("expected a digit");
        }
    }
}
