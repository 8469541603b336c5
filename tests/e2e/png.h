// A small PNG reader for screenshots: 8-bit RGB or RGBA, not interlaced (what
// Chromium writes), inflated with zlib. Enough to tell a blank page from a drawn one.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace backendbench::e2e {

struct Image {
  uint32_t width = 0, height = 0;
  size_t channels = 0;         // 3 (RGB) or 4 (RGBA)
  std::vector<uint8_t> pixels;  // rows top to bottom, `channels` bytes a pixel

  const uint8_t* at(uint32_t x, uint32_t y) const { return &pixels[(size_t(y) * width + x) * channels]; }
};

inline uint32_t big_endian(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

inline uint8_t paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return static_cast<uint8_t>(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

// Throws std::runtime_error for anything else than the PNGs described above.
inline Image read_png(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const uint8_t signature[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (file.size() < 8 || !std::equal(signature, signature + 8, file.begin())) throw std::runtime_error(path + ": not a PNG");
  Image image;
  int bit_depth = 0, color_type = 0, interlace = 0;
  std::vector<uint8_t> compressed;
  for (size_t at = 8; at + 8 <= file.size();) {
    const uint32_t length = big_endian(&file[at]);
    const std::string type(file.begin() + static_cast<long>(at) + 4, file.begin() + static_cast<long>(at) + 8);
    if (at + 12 + length > file.size()) throw std::runtime_error(path + ": truncated chunk " + type);
    const uint8_t* data = &file[at + 8];
    if (type == "IHDR") {
      image.width = big_endian(data);
      image.height = big_endian(data + 4);
      bit_depth = data[8];
      color_type = data[9];
      interlace = data[12];
    } else if (type == "IDAT") {
      compressed.insert(compressed.end(), data, data + length);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + length;
  }
  if (bit_depth != 8 || (color_type != 2 && color_type != 6) || interlace != 0) {
    throw std::runtime_error(path + ": unsupported PNG (bit depth " + std::to_string(bit_depth) + ", color type " +
                             std::to_string(color_type) + ")");
  }
  image.channels = color_type == 6 ? 4 : 3;
  const size_t stride = image.width * image.channels;
  std::vector<uint8_t> raw((stride + 1) * image.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, compressed.data(), compressed.size()) != Z_OK || raw_size != raw.size()) {
    throw std::runtime_error(path + ": image data does not inflate to its size");
  }
  image.pixels.resize(stride * image.height);
  for (uint32_t y = 0; y < image.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* line = &raw[y * (stride + 1) + 1];
    uint8_t* out = &image.pixels[y * stride];
    const uint8_t* up = y > 0 ? &image.pixels[(y - 1) * stride] : nullptr;
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= image.channels ? out[i - image.channels] : 0;
      const int b = up ? up[i] : 0;
      const int c = up && i >= image.channels ? up[i - image.channels] : 0;
      int predicted = 0;
      switch (filter) {
        case 0: predicted = 0; break;
        case 1: predicted = a; break;
        case 2: predicted = b; break;
        case 3: predicted = (a + b) / 2; break;
        case 4: predicted = paeth(a, b, c); break;
        default: throw std::runtime_error(path + ": unknown row filter " + std::to_string(filter));
      }
      out[i] = static_cast<uint8_t>(line[i] + predicted);
    }
  }
  return image;
}

// The share of pixels that differ from the top-left pixel (the page's background).
inline double drawn_share(const Image& image) {
  if (image.width == 0 || image.height == 0) return 0.0;
  const uint8_t* background = image.at(0, 0);
  size_t drawn = 0;
  for (uint32_t y = 0; y < image.height; ++y) {
    for (uint32_t x = 0; x < image.width; ++x) {
      const uint8_t* p = image.at(x, y);
      for (size_t k = 0; k < 3; ++k) {
        if (std::abs(int(p[k]) - int(background[k])) > 16) {
          ++drawn;
          break;
        }
      }
    }
  }
  return double(drawn) / (double(image.width) * image.height);
}

}  // namespace backendbench::e2e
