// The model file (JSON, model.hpp gives the layout) and the per-GPU lookup. The parser is the small
// subset of JSON the file needs (objects, arrays, strings with the usual escapes, numbers, true,
// false, null); no dependency.
#include "model/model.hpp"

#include <dlfcn.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuformats::model {

namespace {

constexpr const char *kKind = "gpuformats-spmv-model";

// --- writing ---

std::string quote(const std::string &s)
{
  std::string o = "\"";
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\', o += (char)ch;
    else if (ch == '\n') o += "\\n";
    else if (ch < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      o += buf;
    } else o += (char)ch;
  }
  return o + "\"";
}

std::string num(double v)
{
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// --- reading ---

struct Value {
  enum Type { null, boolean, number, string, array, object } type = null;
  double                       n = 0;
  bool                         b = false;
  std::string                  s;
  std::vector<Value>           a;
  std::map<std::string, Value> o;
};

const char *type_name(Value::Type t)
{
  static const char *names[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
  return names[t];
}

class Parser {
public:
  Parser(const std::string &text, const std::string &name) : t_(text), name_(name) {}
  Value parse()
  {
    Value v = value(0);
    ws();
    if (p_ != t_.size()) fail("text after the JSON value");
    return v;
  }

private:
  const std::string &t_;
  const std::string &name_;
  size_t             p_ = 0;

  [[noreturn]] void fail(const std::string &what) const
  {
    int line = 1;
    for (size_t k = 0; k < p_ && k < t_.size(); ++k) line += t_[k] == '\n';
    throw Error(ErrorKind::bad_input, "model file " + name_ + ": not valid JSON at line " + std::to_string(line) + ": " + what);
  }
  void ws()
  {
    while (p_ < t_.size() && std::isspace((unsigned char)t_[p_])) ++p_;
  }
  bool eat(char c)
  {
    ws();
    if (p_ < t_.size() && t_[p_] == c) return ++p_, true;
    return false;
  }
  Value value(int depth)
  {
    if (depth > 64) fail("nested too deep");
    ws();
    if (p_ >= t_.size()) fail("unexpected end");
    Value      v;
    const char c = t_[p_];
    if (c == '{') {
      ++p_;
      v.type = Value::object;
      if (eat('}')) return v;
      do {
        ws();
        if (p_ >= t_.size() || t_[p_] != '"') fail("expected a member name");
        std::string key = str();
        if (!eat(':')) fail("expected ':' after \"" + key + "\"");
        if (v.o.count(key)) fail("member \"" + key + "\" given twice");
        v.o[key] = value(depth + 1);
      } while (eat(','));
      if (!eat('}')) fail("expected ',' or '}'");
    } else if (c == '[') {
      ++p_;
      v.type = Value::array;
      if (eat(']')) return v;
      do v.a.push_back(value(depth + 1));
      while (eat(','));
      if (!eat(']')) fail("expected ',' or ']'");
    } else if (c == '"') {
      v.type = Value::string;
      v.s    = str();
    } else if (t_.compare(p_, 4, "true") == 0) p_ += 4, v.type = Value::boolean, v.b = true;
    else if (t_.compare(p_, 5, "false") == 0) p_ += 5, v.type = Value::boolean;
    else if (t_.compare(p_, 4, "null") == 0) p_ += 4;
    else if (c == '-' || std::isdigit((unsigned char)c)) {
      const char *start = t_.c_str() + p_;
      char       *end   = nullptr;
      v.type            = Value::number;
      v.n               = std::strtod(start, &end);
      if (end == start) fail("bad number");
      p_ += (size_t)(end - start);
    } else fail(std::string("unexpected '") + c + "'");
    return v;
  }
  std::string str()
  {
    ++p_; // the opening quote
    std::string o;
    while (p_ < t_.size() && t_[p_] != '"') {
      char c = t_[p_++];
      if (c != '\\') {
        o += c;
        continue;
      }
      if (p_ >= t_.size()) break;
      c = t_[p_++];
      switch (c) {
      case 'n': o += '\n'; break;
      case 't': o += '\t'; break;
      case 'r': o += '\r'; break;
      case 'b': o += '\b'; break;
      case 'f': o += '\f'; break;
      case 'u': {
        if (p_ + 4 > t_.size()) fail("short \\u escape");
        const unsigned cp = (unsigned)std::strtoul(t_.substr(p_, 4).c_str(), nullptr, 16);
        p_ += 4;
        if (cp < 0x80) o += (char)cp;
        else if (cp < 0x800) o += (char)(0xC0 | cp >> 6), o += (char)(0x80 | (cp & 0x3F));
        else o += (char)(0xE0 | cp >> 12), o += (char)(0x80 | (cp >> 6 & 0x3F)), o += (char)(0x80 | (cp & 0x3F));
        break;
      }
      default: o += c; // \" \\ \/
      }
    }
    if (p_ >= t_.size()) fail("unterminated string");
    ++p_;
    return o;
  }
};

// Field access with errors that name the file and the field.
struct Fields {
  const Value       &v;
  const std::string &file, &where;
  [[noreturn]] void  bad(const std::string &what) const { throw Error(ErrorKind::bad_input, "model file " + file + ": " + where + what); }
  const Value       &get(const char *key, Value::Type type) const
  {
    auto it = v.o.find(key);
    if (it == v.o.end()) bad("missing \"" + std::string(key) + "\"");
    if (it->second.type != type) bad("\"" + std::string(key) + "\" must be " + type_name(type) + ", not " + type_name(it->second.type));
    return it->second;
  }
  double number(const char *key) const
  {
    const double x = get(key, Value::number).n;
    if (!std::isfinite(x)) bad("\"" + std::string(key) + "\" is not finite");
    return x;
  }
  int64_t integer(const char *key, int64_t lo, int64_t hi) const
  {
    const double x = number(key);
    if (x != std::floor(x) || x < (double)lo || x > (double)hi)
      bad("\"" + std::string(key) + "\" must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]; got " + num(x));
    return (int64_t)x;
  }
  std::string string(const char *key) const { return get(key, Value::string).s; }
};

} // namespace

std::string to_json(const Model &m)
{
  std::ostringstream o;
  o << "{\n  \"kind\": " << quote(kKind) << ",\n  \"version\": " << m.version << ",\n  \"gpu\": " << quote(m.gpu)
    << ",\n  \"sm_count\": " << m.sm_count << ",\n  \"max_threads_per_sm\": " << m.max_threads_per_sm << ",\n  \"l2_bytes\": " << m.l2_bytes
    << ",\n  \"strip_rows\": " << m.strip_rows << ",\n  \"note\": " << quote(m.note) << ",\n  \"terms\": [";
  for (int k = 0; k < kTerms; ++k) o << (k ? ", " : "") << quote(kTermNames[k]);
  o << "],\n  \"candidates\": [";
  for (size_t i = 0; i < m.candidates.size(); ++i) {
    const Candidate &c = m.candidates[i];
    o << (i ? ",\n" : "\n") << "    { \"name\": " << quote(c.name) << ", \"coef\": [";
    for (int k = 0; k < kTerms; ++k) o << (k ? ", " : "") << num(c.coef[k]);
    o << "], \"samples\": " << c.samples << ", \"rms_rel_error\": " << num(c.rms_rel_error) << ", \"max_rel_error\": " << num(c.max_rel_error) << " }";
  }
  o << "\n  ]\n}\n";
  return o.str();
}

void write_model(const Model &m, const std::string &path)
{
  std::ofstream f(path);
  if (!f) throw Error(ErrorKind::bad_input, "cannot write the model file " + path);
  f << to_json(m);
  f.close();
  if (!f) throw Error(ErrorKind::bad_input, "cannot write the model file " + path);
}

Model from_json(const std::string &text, const std::string &name)
{
  const Value root = Parser(text, name).parse();
  if (root.type != Value::object) throw Error(ErrorKind::bad_input, "model file " + name + ": the top level must be an object");
  const std::string top;
  const Fields      f{root, name, top};
  if (f.string("kind") != kKind) f.bad("\"kind\" must be \"" + std::string(kKind) + "\"; got \"" + f.string("kind") + "\"");
  Model m;
  m.version = (int)f.integer("version", 0, 1 << 30);
  if (m.version != kModelVersion) f.bad("version " + std::to_string(m.version) + " is not the version this library reads (" + std::to_string(kModelVersion) + "); calibrate again, or refit from that calibration's log: bin/gpuformats_calibrate -refit <log> -o <file>");
  m.gpu                = f.string("gpu");
  m.sm_count           = (int)f.integer("sm_count", 1, 1 << 20);
  m.max_threads_per_sm = (int)f.integer("max_threads_per_sm", 1, 1 << 20);
  m.l2_bytes           = f.integer("l2_bytes", 0, (int64_t)1 << 50);
  m.strip_rows         = (int32_t)f.integer("strip_rows", 1, 0x7fffffff);
  if (m.strip_rows != strip_rows_for(m.sm_count, m.max_threads_per_sm))
    f.bad("\"strip_rows\" " + std::to_string(m.strip_rows) + " is not sm_count x max_threads_per_sm = " + std::to_string(strip_rows_for(m.sm_count, m.max_threads_per_sm)));
  if (root.o.count("note")) m.note = f.string("note");
  const Value &terms = f.get("terms", Value::array);
  bool         same  = terms.a.size() == (size_t)kTerms;
  for (size_t k = 0; same && k < terms.a.size(); ++k) same = terms.a[k].type == Value::string && terms.a[k].s == kTermNames[k];
  if (!same) {
    std::string want;
    for (int k = 0; k < kTerms; ++k) want += std::string(k ? ", " : "") + kTermNames[k];
    f.bad("\"terms\" must be [" + want + "] (a model of another form; calibrate again)");
  }
  const Value &cands = f.get("candidates", Value::array);
  if (cands.a.empty()) f.bad("\"candidates\" is empty");
  std::set<std::string> seen;
  for (size_t i = 0; i < cands.a.size(); ++i) {
    const std::string where = "candidate " + std::to_string(i) + ": ";
    if (cands.a[i].type != Value::object) f.bad(where + "must be an object");
    const Fields c{cands.a[i], name, where};
    Candidate    k;
    k.name = c.string("name");
    if (k.name.empty()) c.bad("\"name\" is empty");
    if (!seen.insert(k.name).second) c.bad("\"" + k.name + "\" appears twice");
    const Value &coef = c.get("coef", Value::array);
    if (coef.a.size() != (size_t)kTerms) c.bad("\"coef\" of " + k.name + " has " + std::to_string(coef.a.size()) + " numbers, not " + std::to_string(kTerms));
    for (int t = 0; t < kTerms; ++t) {
      if (coef.a[t].type != Value::number || !std::isfinite(coef.a[t].n) || coef.a[t].n < 0)
        c.bad("\"coef\" of " + k.name + ", term " + kTermNames[t] + ", must be a finite number >= 0");
      k.coef[t] = coef.a[t].n;
    }
    k.samples       = (int)c.integer("samples", 0, 1 << 30);
    k.rms_rel_error = c.number("rms_rel_error");
    k.max_rel_error = c.number("max_rel_error");
    m.candidates.push_back(k);
  }
  return m;
}

Model read_model(const std::string &path)
{
  std::ifstream f(path);
  if (!f) throw Error(ErrorKind::bad_input, "cannot read the model file " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return from_json(ss.str(), path);
}

// --- lookup ---

std::string model_file_name(const std::string &gpu_name)
{
  std::string o;
  bool        dash = false;
  for (unsigned char ch : gpu_name) {
    if (std::isalnum(ch)) {
      if (dash && !o.empty()) o += '-';
      o += (char)std::tolower(ch);
      dash = false;
    } else dash = true;
  }
  return (o.empty() ? std::string("unnamed-gpu") : o) + ".json";
}

std::vector<std::string> model_dirs()
{
  std::vector<std::string> dirs;
  if (const char *env = std::getenv("GPUFORMATS_MODEL_DIR"); env && *env) dirs.push_back(env);
  Dl_info info{};
  if (dladdr((const void *)&model_dirs, &info) && info.dli_fname) {
    std::string self = info.dli_fname;
    // An executable found through PATH reports argv[0]; /proc/self/exe is the real one then.
    if (self.find('/') == std::string::npos) {
      char    buf[4096];
      ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
      if (n > 0) self.assign(buf, (size_t)n);
    }
    const size_t slash = self.rfind('/');
    const std::string bindir = slash == std::string::npos ? "." : self.substr(0, slash);
    dirs.push_back(bindir + "/../share/gpuformats/models");
    // bin/test/<program> of the source tree is one level further down.
    dirs.push_back(bindir + "/../../share/gpuformats/models");
  }
  return dirs;
}

Model default_model()
{
  Model m;
  m.gpu                = "(default: no calibrated model)";
  m.sm_count           = 1;
  m.max_threads_per_sm = 1 << 18; // strips of 262144 rows, about an H100's
  m.strip_rows         = strip_rows_for(m.sm_count, m.max_threads_per_sm);
  m.l2_bytes           = 50 << 20;
  m.is_default         = true;
  m.note               = "uncalibrated: always cuSPARSE CSR, what aijcusparse runs";
  Candidate c;
  c.name    = kCusparseCsr;
  c.coef    = {5e-6, 8.0 / 2e12, 12.0 / 2e12, 0, 0, 0};
  m.candidates.push_back(c);
  return m;
}

Model find_model(const std::string &gpu_name, const std::vector<std::string> &dirs, std::string *found)
{
  const std::string file = model_file_name(gpu_name);
  std::string       tried;
  for (const std::string &d : dirs) {
    const std::string path = d + "/" + file;
    struct stat       st{};
    if (stat(path.c_str(), &st) == 0) {
      Model m = read_model(path);
      if (found) *found = path;
      return m;
    }
    tried += (tried.empty() ? "" : ", ") + path;
  }
  throw Error(ErrorKind::unsupported, "no SpMV model for the GPU \"" + gpu_name + "\" (looked for " + (tried.empty() ? file + " in no directory" : tried) + "); " + kCalibrateHint);
}

Model model_or_default(const std::string &gpu_name, const std::vector<std::string> &dirs, std::string *message, std::string *path)
{
  if (message) message->clear();
  if (path) path->clear();
  try {
    return find_model(gpu_name, dirs, path);
  } catch (const Error &e) {
    if (e.kind != ErrorKind::unsupported) throw;
    if (message) *message = std::string(e.what()) + ". Until then: cuSPARSE CSR everywhere (the default model, never slower than aijcusparse).";
    return default_model();
  }
}

} // namespace gpuformats::model
