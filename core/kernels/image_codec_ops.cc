// Image codecs through the system libraries, as TensorFlow's
// (decode_image_op.cc, encode_*_op.cc, lib/{png,jpeg,gif}): libpng,
// libjpeg-turbo and giflib; BMP by hand (TF's own reader). Every decoder
// sniffs the format (TF's DecodeImageV2 serves DecodePng, DecodeJpeg,
// DecodeGif, DecodeBmp, DecodeAndCropJpeg and DecodeImage alike), with TF's
// per-op restrictions and messages.
//
// The libraries report errors by calling an error function that must not
// return: libjpeg's default one calls exit(). Each decoder installs its own,
// which longjmps back to a setjmp in a function whose frame holds only plain C
// data (no destructors are skipped).
#include <algorithm>
#include <array>
#include <cmath>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <vector>

// clang-format off
#include <png.h>
#include <jpeglib.h>
#include <jerror.h>
#include <gif_lib.h>
// clang-format on

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

// ---------------------------------------------------------------- PNG ------

struct PngDecode {
  const uint8_t* data = nullptr;
  size_t left = 0;
  png_structp png = nullptr;
  png_infop info = nullptr;
  png_uint_32 width = 0, height = 0;
  int color_type = 0, bit_depth = 0, channels = 0, num_passes = 0;
  bool synthesize_16 = false;
  bool error = false;
};

void PngError(png_structp png, png_const_charp) {
  auto* ctx = static_cast<PngDecode*>(png_get_io_ptr(png));
  ctx->error = true;
  longjmp(png_jmpbuf(png), 1);
}

void PngWarning(png_structp, png_const_charp) {}

void PngRead(png_structp png, png_bytep out, png_size_t length) {
  auto* ctx = static_cast<PngDecode*>(png_get_io_ptr(png));
  if (ctx->left < length) {
    std::memset(out, 0, length);
    png_error(png, "More bytes were requested to read than are available");
  }
  std::memcpy(out, ctx->data, length);
  ctx->data += length;
  ctx->left -= length;
}

void PngFree(PngDecode* ctx) {
  if (ctx->png != nullptr) {
    png_destroy_read_struct(&ctx->png, ctx->info ? &ctx->info : nullptr,
                            nullptr);
    ctx->png = nullptr;
    ctx->info = nullptr;
  }
}

// TF's png::CommonInitDecode: the header, and the transformations to
// `desired_channels` (0: the file's) at `bits` (8 or 16) per channel.
bool PngInit(const std::string& in, int desired_channels, int bits,
             PngDecode* ctx) {
  ctx->data = reinterpret_cast<const uint8_t*>(in.data());
  ctx->left = in.size();
  ctx->png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, ctx, PngError, PngWarning);
  if (ctx->png == nullptr) return false;
  ctx->info = png_create_info_struct(ctx->png);
  if (ctx->info == nullptr) {
    PngFree(ctx);
    return false;
  }
  if (setjmp(png_jmpbuf(ctx->png))) {
    PngFree(ctx);
    return false;
  }
  png_set_read_fn(ctx->png, ctx, PngRead);
  png_read_info(ctx->png, ctx->info);
  int interlace;
  png_get_IHDR(ctx->png, ctx->info, &ctx->width, &ctx->height, &ctx->bit_depth,
               &ctx->color_type, &interlace, nullptr, nullptr);
  if (ctx->error) {
    PngFree(ctx);
    return false;
  }
  ctx->channels = desired_channels;
  if (ctx->channels == 0) {
    if (ctx->color_type == PNG_COLOR_TYPE_PALETTE) {
      ctx->channels = png_get_valid(ctx->png, ctx->info, PNG_INFO_tRNS) ? 4 : 3;
    } else {
      ctx->channels = png_get_channels(ctx->png, ctx->info);
    }
  }
  const bool has_trns = png_get_valid(ctx->png, ctx->info, PNG_INFO_tRNS);
  const bool has_alpha = (ctx->color_type & PNG_COLOR_MASK_ALPHA) != 0;
  if ((ctx->channels & 1) == 0) {  // alpha wanted
    if (!has_alpha) {
      if (has_trns) {
        png_set_tRNS_to_alpha(ctx->png);
      } else {
        png_set_add_alpha(ctx->png, (1 << ctx->bit_depth) - 1,
                          PNG_FILLER_AFTER);
      }
    }
  } else if (has_alpha || has_trns) {
    png_set_strip_alpha(ctx->png);
  }
  if (ctx->bit_depth > 8 && bits <= 8) png_set_strip_16(ctx->png);
  ctx->synthesize_16 = ctx->bit_depth <= 8 && bits == 16;
  png_set_packing(ctx->png);
  ctx->num_passes = png_set_interlace_handling(ctx->png);
  if (bits > 8) png_set_swap(ctx->png);  // little-endian hosts only
  if (ctx->color_type == PNG_COLOR_TYPE_PALETTE) {
    png_set_palette_to_rgb(ctx->png);
  }
  const bool want_gray = ctx->channels < 3;
  const bool is_gray = (ctx->color_type & PNG_COLOR_MASK_COLOR) == 0;
  if (is_gray && ctx->bit_depth < 8) png_set_expand_gray_1_2_4_to_8(ctx->png);
  if (want_gray) {
    if (!is_gray) png_set_rgb_to_gray(ctx->png, 1, 0.299, 0.587);
  } else if (is_gray) {
    png_set_gray_to_rgb(ctx->png);
  }
  png_read_update_info(ctx->png, ctx->info);
  return true;
}

// TF's png::CommonFinishDecode: the rows into `out` (row_bytes apart).
bool PngFinish(uint8_t* out, size_t row_bytes, PngDecode* ctx) {
  if (setjmp(png_jmpbuf(ctx->png))) {
    PngFree(ctx);
    return false;
  }
  for (int p = 0; p < ctx->num_passes; ++p) {
    uint8_t* row = out;
    for (png_uint_32 h = 0; h < ctx->height; ++h, row += row_bytes) {
      png_read_row(ctx->png, row, nullptr);
    }
  }
  png_read_end(ctx->png, ctx->info);
  const bool ok = !ctx->error;
  PngFree(ctx);
  if (ctx->synthesize_16) {
    // 8-bit samples into 16 (v * 257), in place from the end.
    const size_t n = static_cast<size_t>(ctx->channels) * ctx->width;
    for (int64_t h = static_cast<int64_t>(ctx->height) - 1; h >= 0; --h) {
      uint8_t* row = out + h * row_bytes;
      uint16_t* row16 = reinterpret_cast<uint16_t*>(row);
      for (int64_t i = static_cast<int64_t>(n) - 1; i >= 0; --i) {
        row16[i] = static_cast<uint16_t>(row[i]) * 257;
      }
    }
  }
  return ok;
}

struct PngWrite {
  std::string* out;
  bool error = false;
};

void PngWriteError(png_structp png, png_const_charp) {
  static_cast<PngWrite*>(png_get_io_ptr(png))->error = true;
  longjmp(png_jmpbuf(png), 1);
}

void PngWriteData(png_structp png, png_bytep data, png_size_t length) {
  static_cast<PngWrite*>(png_get_io_ptr(png))
      ->out->append(reinterpret_cast<const char*>(data), length);
}

void PngFlush(png_structp) {}

// TF's png::WriteImageToBuffer.
bool PngEncode(const uint8_t* image, int width, int height, size_t row_bytes,
               int channels, int bits, int compression, std::string* out) {
  static const int kColorTypes[] = {PNG_COLOR_TYPE_GRAY,
                                    PNG_COLOR_TYPE_GRAY_ALPHA,
                                    PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGBA};
  PngWrite w{out};
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr,
                                            PngWriteError, PngWarning);
  if (png == nullptr) return false;
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, &w, PngWriteData, PngFlush);
  png_set_compression_level(png, compression < 0 ? -1 : compression);
  png_set_compression_mem_level(png, 9);
  png_set_IHDR(png, info, width, height, bits, kColorTypes[channels - 1],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (bits > 8) png_set_swap(png);
  const uint8_t* row = image;
  for (int h = 0; h < height; ++h, row += row_bytes) {
    png_write_row(png, const_cast<png_bytep>(row));
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return !w.error;
}

// --------------------------------------------------------------- JPEG ------

struct JpegError {
  jpeg_error_mgr pub;
  jmp_buf jump;
};

void JpegErrorExit(j_common_ptr cinfo) {
  longjmp(reinterpret_cast<JpegError*>(cinfo->err)->jump, 1);
}

void JpegQuiet(j_common_ptr) {}

// TF's memory source (jpeg_handle.cc): a truncated file ends with a fake EOI
// when try_recover_truncated is set, else it is an error.
struct JpegSource {
  jpeg_source_mgr pub;
  const JOCTET* data;
  size_t size;
  bool try_recover;
  // Where a fill found bytes still unread: a second fill there with nothing
  // consumed is an error (libjpeg would otherwise ask again without end).
  const JOCTET* stalled_at;
};

const JOCTET kEoi[2] = {0xFF, JPEG_EOI};

void JpegInitSource(j_decompress_ptr) {}
void JpegTermSource(j_decompress_ptr) {}

boolean JpegFill(j_decompress_ptr cinfo) {
  auto* src = reinterpret_cast<JpegSource*>(cinfo->src);
  if (src->pub.bytes_in_buffer == 0 && src->pub.next_input_byte == src->data) {
    ERREXIT(cinfo, JERR_INPUT_EMPTY);
    return FALSE;
  } else if (src->pub.bytes_in_buffer) {
    if (!src->try_recover) return FALSE;
    if (src->stalled_at == src->pub.next_input_byte) {
      ERREXIT(cinfo, JERR_FILE_READ);
      return FALSE;
    }
    src->stalled_at = src->pub.next_input_byte;
    return TRUE;
  } else if (src->pub.next_input_byte != kEoi && src->try_recover) {
    WARNMS(cinfo, JWRN_JPEG_EOF);
    src->pub.next_input_byte = kEoi;
    src->pub.bytes_in_buffer = 2;
    return TRUE;
  }
  ERREXIT(cinfo, JERR_FILE_READ);
  return FALSE;
}

void JpegSkip(j_decompress_ptr cinfo, long jump) {  // NOLINT(runtime/int)
  auto* src = reinterpret_cast<JpegSource*>(cinfo->src);
  if (jump < 0) return;
  if (static_cast<size_t>(jump) > src->pub.bytes_in_buffer) {
    src->pub.bytes_in_buffer = 0;
    (void)JpegFill(cinfo);
  } else {
    src->pub.bytes_in_buffer -= jump;
    src->pub.next_input_byte += jump;
  }
}

void JpegSetSource(j_decompress_ptr cinfo, JpegSource* src, const void* data,
                   size_t size, bool try_recover) {
  src->pub.init_source = JpegInitSource;
  src->pub.fill_input_buffer = JpegFill;
  src->pub.skip_input_data = JpegSkip;
  src->pub.resync_to_restart = jpeg_resync_to_restart;
  src->pub.term_source = JpegTermSource;
  src->data = static_cast<const JOCTET*>(data);
  src->size = size;
  src->try_recover = try_recover;
  src->stalled_at = nullptr;
  src->pub.bytes_in_buffer = size;
  src->pub.next_input_byte = src->data;
  cinfo->src = &src->pub;
}

void JpegInstallErrors(JpegError* err) {
  jpeg_std_error(&err->pub);
  err->pub.error_exit = JpegErrorExit;
  err->pub.output_message = JpegQuiet;
}

struct JpegFlags {
  int components = 0;  // 0: the file's
  int ratio = 1;
  bool fancy_upscaling = true;
  bool try_recover_truncated = false;
  float min_acceptable_fraction = 1.0f;
  J_DCT_METHOD dct_method = JDCT_IFAST;
  bool crop = false;
  int crop_x = 0, crop_y = 0, crop_width = 0, crop_height = 0;
};

// Allocates the [height, width, channels] output; nullptr on failure.
using JpegAllocate = std::function<uint8_t*(int, int, int)>;

// TF's jpeg::UncompressLow. Returns the buffer (nullptr on failure) and in
// *height_read the rows decoded and in *out_height the rows allocated.
uint8_t* JpegUncompressLow(const void* data, size_t size, const JpegFlags& f,
                           const JpegAllocate* allocate, int64_t* height_read,
                           int64_t* out_height, int64_t* out_stride) {
  jpeg_decompress_struct cinfo;
  JpegError err;
  JpegSource src;
  JSAMPLE* volatile tempdata = nullptr;
  JpegInstallErrors(&err);
  cinfo.err = &err.pub;
  if (setjmp(err.jump)) {
    delete[] tempdata;
    jpeg_destroy_decompress(&cinfo);
    return nullptr;
  }
  jpeg_create_decompress(&cinfo);
  JpegSetSource(&cinfo, &src, data, size, f.try_recover_truncated);
  jpeg_read_header(&cinfo, TRUE);
  const int components =
      f.components == 0 ? cinfo.num_components : f.components;
  switch (components) {
    case 1:
      cinfo.out_color_space = JCS_GRAYSCALE;
      break;
    case 3:
      cinfo.out_color_space = (cinfo.jpeg_color_space == JCS_CMYK ||
                               cinfo.jpeg_color_space == JCS_YCCK)
                                  ? JCS_CMYK
                                  : JCS_RGB;
      break;
    default:
      jpeg_destroy_decompress(&cinfo);
      return nullptr;
  }
  cinfo.do_fancy_upsampling = f.fancy_upscaling ? TRUE : FALSE;
  cinfo.scale_num = 1;
  cinfo.scale_denom = f.ratio;
  cinfo.dct_method = f.dct_method;
  jpeg_calc_output_dimensions(&cinfo);
  const int64_t total = static_cast<int64_t>(cinfo.output_height) *
                        cinfo.output_width * cinfo.num_components;
  if (cinfo.output_width <= 0 || cinfo.output_height <= 0 ||
      total >= (int64_t{1} << 29)) {
    jpeg_destroy_decompress(&cinfo);
    return nullptr;
  }
  jpeg_start_decompress(&cinfo);
  JDIMENSION target_width = cinfo.output_width;
  JDIMENSION target_height = cinfo.output_height;
  JDIMENSION skipped = 0;
  if (f.crop) {
    target_height = f.crop_height;
    target_width = f.crop_width;
    const bool valid = f.crop_width > 0 && f.crop_height > 0 && f.crop_x >= 0 &&
                       f.crop_y >= 0 &&
                       static_cast<int64_t>(f.crop_y) + f.crop_height <=
                           static_cast<int64_t>(cinfo.output_height) &&
                       static_cast<int64_t>(f.crop_x) + f.crop_width <=
                           static_cast<int64_t>(cinfo.output_width);
    if (!valid) {
      jpeg_destroy_decompress(&cinfo);
      return nullptr;
    }
    JDIMENSION crop_width = f.crop_width;
    JDIMENSION crop_x = f.crop_x;
    jpeg_crop_scanline(&cinfo, &crop_x, &crop_width);
    skipped = jpeg_skip_scanlines(&cinfo, f.crop_y);
    if (skipped != static_cast<JDIMENSION>(f.crop_y)) {
      jpeg_destroy_decompress(&cinfo);
      return nullptr;
    }
  }
  const int64_t stride = static_cast<int64_t>(target_width) * components;
  // The allocation calls C++ code; it runs to completion (no longjmp can
  // cross it: libjpeg is not running).
  uint8_t* const dstdata =
      (*allocate)(static_cast<int>(target_width),
                  static_cast<int>(target_height), components);
  if (dstdata == nullptr) {
    jpeg_destroy_decompress(&cinfo);
    return nullptr;
  }
  *out_height = target_height;
  *out_stride = stride;
  JSAMPLE* output_line = dstdata;
  const bool realign = target_width != cinfo.output_width;
  const bool use_cmyk = cinfo.out_color_space == JCS_CMYK;
  if (use_cmyk) {
    tempdata = new JSAMPLE[cinfo.output_width * 4];
  } else if (realign) {
    tempdata = new JSAMPLE[cinfo.output_width * components];
  }
  *height_read = target_height;
  const JDIMENSION max_lines = skipped + target_height;
  const int mcu_offset =
      (cinfo.output_width - target_width) * (use_cmyk ? 4 : components);
  bool truncated = false;
  while (cinfo.output_scanline < max_lines) {
    int lines = 0;
    if (use_cmyk) {
      JSAMPLE* temp = tempdata;
      lines = jpeg_read_scanlines(&cinfo, &temp, 1);
      if (lines > 0) {
        for (size_t i = 0; i < target_width; ++i) {
          int o = 4 * i;
          if (realign) o += mcu_offset;
          const int c = tempdata[o], m = tempdata[o + 1], y = tempdata[o + 2],
                    k = tempdata[o + 3];
          int r, g, b;
          if (cinfo.saw_Adobe_marker) {
            r = (k * c) / 255;
            g = (k * m) / 255;
            b = (k * y) / 255;
          } else {
            r = (255 - k) * (255 - c) / 255;
            g = (255 - k) * (255 - m) / 255;
            b = (255 - k) * (255 - y) / 255;
          }
          output_line[3 * i] = r;
          output_line[3 * i + 1] = g;
          output_line[3 * i + 2] = b;
        }
      }
    } else if (realign) {
      JSAMPLE* temp = tempdata;
      lines = jpeg_read_scanlines(&cinfo, &temp, 1);
      if (lines > 0) std::memcpy(output_line, tempdata + mcu_offset, stride);
    } else {
      lines = jpeg_read_scanlines(&cinfo, &output_line, 1);
    }
    if (lines == 0) {
      if (!f.try_recover_truncated) {
        *height_read = cinfo.output_scanline - skipped;
        truncated = true;
      } else {
        for (JDIMENSION line = cinfo.output_scanline; line < max_lines;
             ++line) {
          if (line == 0) {
            std::memset(output_line, 0, stride);
          } else {
            std::memcpy(output_line, output_line - stride, stride);
          }
          output_line += stride;
        }
        *height_read = target_height;
        cinfo.output_scanline = max_lines;
      }
      break;
    }
    output_line += stride;
  }
  delete[] tempdata;
  tempdata = nullptr;
  if (f.crop && cinfo.output_scanline < cinfo.output_height) {
    jpeg_skip_scanlines(&cinfo, cinfo.output_height - f.crop_y - f.crop_height);
  }
  bool bad_param;
  if (components == 1) {
    bad_param = cinfo.output_components != 1;
  } else {
    bad_param = cinfo.output_components != (use_cmyk ? 4 : 3);
  }
  if (!truncated && !bad_param) {
    jpeg_finish_decompress(&cinfo);
  } else {
    jpeg_abort(reinterpret_cast<j_common_ptr>(&cinfo));
  }
  jpeg_destroy_decompress(&cinfo);
  return dstdata;
}

// TF's jpeg::Uncompress: a partly read image is accepted when at least
// min_acceptable_fraction of its rows were read; the rest are black.
bool JpegUncompress(const std::string& in, const JpegFlags& f,
                    const JpegAllocate& allocate) {
  int64_t height_read = 0, height = 0, stride = 0;
  uint8_t* data = JpegUncompressLow(in.data(), in.size(), f, &allocate,
                                    &height_read, &height, &stride);
  if (data == nullptr) return false;
  const float fraction =
      height == 0 ? 1.0f : static_cast<float>(height_read) / height;
  if (fraction < f.min_acceptable_fraction) return false;
  if (height_read < height) {
    std::memset(data + height_read * stride, 0,
                (height - height_read) * stride);
  }
  return true;
}

// TF's jpeg::GetImageInfo.
bool JpegImageInfo(const std::string& in, int* width, int* height,
                   int* components) {
  jpeg_decompress_struct cinfo;
  JpegError err;
  JpegSource src;
  JpegInstallErrors(&err);
  cinfo.err = &err.pub;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  JpegSetSource(&cinfo, &src, in.data(), in.size(), false);
  jpeg_read_header(&cinfo, TRUE);
  *width = cinfo.image_width;
  *height = cinfo.image_height;
  *components = cinfo.num_components;
  jpeg_destroy_decompress(&cinfo);
  return true;
}

struct JpegCompressFlags {
  int quality = 95;
  bool progressive = false;
  bool optimize_size = false;
  bool chroma_downsampling = true;
  int density_unit = 1;
  int x_density = 300, y_density = 300;
  std::string xmp_metadata;
};

struct JpegDest {
  jpeg_destination_mgr pub;
  std::string* out;
  JOCTET buffer[4096];
};

void JpegInitDest(j_compress_ptr cinfo) {
  auto* d = reinterpret_cast<JpegDest*>(cinfo->dest);
  d->pub.next_output_byte = d->buffer;
  d->pub.free_in_buffer = sizeof(d->buffer);
}

boolean JpegEmpty(j_compress_ptr cinfo) {
  auto* d = reinterpret_cast<JpegDest*>(cinfo->dest);
  d->out->append(reinterpret_cast<const char*>(d->buffer), sizeof(d->buffer));
  d->pub.next_output_byte = d->buffer;
  d->pub.free_in_buffer = sizeof(d->buffer);
  return TRUE;
}

void JpegTermDest(j_compress_ptr cinfo) {
  auto* d = reinterpret_cast<JpegDest*>(cinfo->dest);
  d->out->append(reinterpret_cast<const char*>(d->buffer),
                 sizeof(d->buffer) - d->pub.free_in_buffer);
}

// TF's jpeg::CompressInternal, for gray (1) or RGB (3) rows. `out` must be
// empty; `xmp` is the packet (namespace + NUL + metadata) or empty.
bool JpegCompress(const uint8_t* image, int width, int height, int components,
                  const JpegCompressFlags& f, const std::string& xmp,
                  std::string* out) {
  if (width <= 0 || height <= 0) return false;
  jpeg_compress_struct cinfo;
  JpegError err;
  JpegDest dest;
  JpegInstallErrors(&err);
  cinfo.err = &err.pub;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    return false;
  }
  jpeg_create_compress(&cinfo);
  dest.out = out;
  dest.pub.init_destination = JpegInitDest;
  dest.pub.empty_output_buffer = JpegEmpty;
  dest.pub.term_destination = JpegTermDest;
  cinfo.dest = &dest.pub;
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = components;
  cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  if (f.optimize_size) cinfo.optimize_coding = TRUE;
  cinfo.density_unit = f.density_unit;
  cinfo.X_density = f.x_density;
  cinfo.Y_density = f.y_density;
  jpeg_set_quality(&cinfo, f.quality, TRUE);
  if (f.progressive) jpeg_simple_progression(&cinfo);
  if (!f.chroma_downsampling) {
    for (int i = 0; i < cinfo.num_components; ++i) {
      cinfo.comp_info[i].h_samp_factor = 1;
      cinfo.comp_info[i].v_samp_factor = 1;
    }
  }
  jpeg_start_compress(&cinfo, TRUE);
  if (!xmp.empty()) {
    jpeg_write_marker(&cinfo, JPEG_APP0 + 1,
                      reinterpret_cast<const JOCTET*>(xmp.data()),
                      static_cast<unsigned int>(xmp.size()));
  }
  const int64_t stride = static_cast<int64_t>(width) * components;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(image + cinfo.next_scanline * stride);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return true;
}

// ---------------------------------------------------------------- GIF ------

struct GifInput {
  const uint8_t* buf;
  int left;
};

int GifRead(GifFileType* gif, GifByteType* out, int size) {
  auto* in = static_cast<GifInput*>(gif->UserData);
  if (in == nullptr) return 0;
  if (size > in->left) size = in->left;
  std::memcpy(out, in->buf, size);
  in->buf += size;
  in->left -= size;
  return size;
}

std::string GifErrorText(int code) {
  const char* s = GifErrorString(code);
  return s == nullptr ? "Unknown error" : s;
}

using GifAllocate = std::function<uint8_t*(int, int, int, int)>;

// TF's gif::Decode: the frames composed onto a canvas as large as the
// largest frame; transparent pixels keep the previous frame's (black at
// first).
uint8_t* GifDecode(const std::string& in, const GifAllocate& allocate,
                   std::string* error, bool expand_animations) {
  GifInput input{reinterpret_cast<const uint8_t*>(in.data()),
                 static_cast<int>(in.size())};
  int code = D_GIF_SUCCEEDED;
  GifFileType* gif = DGifOpen(&input, GifRead, &code);
  struct Closer {
    GifFileType* g;
    ~Closer() {
      int c;
      if (g != nullptr) DGifCloseFile(g, &c);
    }
  } closer{gif};
  if (code != D_GIF_SUCCEEDED || gif == nullptr) {
    *error = "failed to open gif file: " + GifErrorText(code);
    return nullptr;
  }
  if (DGifSlurp(gif) != GIF_OK) {
    *error = "failed to slurp gif file: " + GifErrorText(gif->Error);
    if (gif->ImageCount <= 0 ||
        gif->SavedImages[gif->ImageCount - 1].RasterBits == nullptr) {
      return nullptr;
    }
  }
  if (gif->ImageCount <= 0) {
    *error = "gif file does not contain any image";
    return nullptr;
  }
  int frames = gif->ImageCount;
  int width = 0, height = 0;
  for (int k = 0; k < frames; ++k) {
    width = std::max(width, gif->SavedImages[k].ImageDesc.Width);
    height = std::max(height, gif->SavedImages[k].ImageDesc.Height);
  }
  constexpr int kChannels = 3;
  if (!expand_animations) frames = 1;
  uint8_t* const dst = allocate(frames, width, height, kChannels);
  if (dst == nullptr) return nullptr;
  const int64_t frame_size = static_cast<int64_t>(width) * height * kChannels;
  for (int k = 0; k < frames; ++k) {
    uint8_t* this_dst = dst + k * frame_size;
    SavedImage* image = &gif->SavedImages[k];
    GifImageDesc* desc = &image->ImageDesc;
    GraphicsControlBlock gcb;
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    DGifSavedExtensionToGCB(gif, k, &gcb);
    int left = desc->Left, top = desc->Top;
    int right = desc->Left + desc->Width, bottom = desc->Top + desc->Height;
    if (k > 0) std::memcpy(this_dst, this_dst - frame_size, frame_size);
    if (desc->Left != 0 || desc->Top != 0 || desc->Width != width ||
        desc->Height != height) {
      if (k == 0) std::memset(this_dst, 0, frame_size);
      left = std::max(left, 0);
      top = std::max(top, 0);
      right = std::min(right, width);
      bottom = std::min(bottom, height);
    }
    ColorMapObject* map =
        desc->ColorMap != nullptr ? desc->ColorMap : gif->SColorMap;
    if (map == nullptr) {
      *error = "missing color map";
      return nullptr;
    }
    for (int64_t i = top; i < bottom; ++i) {
      uint8_t* p = this_dst + i * width * kChannels;
      for (int64_t j = left; j < right; ++j) {
        const GifByteType index =
            image->RasterBits[(i - desc->Top) * desc->Width + (j - desc->Left)];
        if (index == gcb.TransparentColor) {
          if (k == 0) {
            p[j * kChannels] = p[j * kChannels + 1] = p[j * kChannels + 2] = 0;
          }
          continue;
        }
        if (index >= map->ColorCount) {
          *error = StrCat("found color index ", static_cast<int>(index),
                          " outside of color map range ", map->ColorCount);
          return nullptr;
        }
        const GifColorType& c = map->Colors[index];
        p[j * kChannels] = c.Red;
        p[j * kChannels + 1] = c.Green;
        p[j * kChannels + 2] = c.Blue;
      }
    }
  }
  return dst;
}

// ------------------------------------------------------------ kernels ------

enum class Format { kUnknown, kJpeg, kPng, kGif, kBmp };

Format Classify(const std::string& s) {
  auto starts = [&s](const char* magic, size_t n) {
    return s.size() >= n && std::memcmp(s.data(), magic, n) == 0;
  };
  if (starts("\xff\xd8\xff", 3)) return Format::kJpeg;
  if (starts("\x89PNG\r\n\x1a\n", 8)) return Format::kPng;
  if (starts("GIF8", 4)) return Format::kGif;
  if (starts("BM", 2)) return Format::kBmp;
  return Format::kUnknown;
}

const char* FormatName(Format f) {
  switch (f) {
    case Format::kJpeg:
      return "JPEG";
    case Format::kPng:
      return "PNG";
    case Format::kGif:
      return "GIF";
    case Format::kBmp:
      return "BMP";
    default:
      return "unknown";
  }
}

// TF's DecodeImageV2Op: one kernel for every decoding op.
class DecodeImageOp : public OpKernel {
 public:
  explicit DecodeImageOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    op_ = ctx->node().type_string();
    const auto& attrs = ctx->node().attrs();
    if (op_ == "DecodeGif") {
      channels_ = 3;  // TF's: a PNG or JPEG read by DecodeGif is RGB
    } else {
      int64_t channels = 0;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("channels", &channels));
      channels_ = static_cast<int>(channels);
      OP_REQUIRES(
          ctx,
          channels_ == 0 || channels_ == 1 || channels_ == 3 || channels_ == 4,
          errors::InvalidArgument("`channels` must be 0, 1, 3 or 4 but got ",
                                  channels_));
    }
    if (attrs.count("dtype")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    }
    if (attrs.count("expand_animations")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("expand_animations", &expand_));
    }
    if (op_ == "DecodeJpeg" || op_ == "DecodeAndCropJpeg") {
      int64_t ratio = 1;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("ratio", &ratio));
      OP_REQUIRES(
          ctx, ratio == 1 || ratio == 2 || ratio == 4 || ratio == 8,
          errors::InvalidArgument("ratio must be 1, 2, 4, or 8, got ", ratio));
      flags_.ratio = static_cast<int>(ratio);
      OP_REQUIRES_OK(ctx,
                     ctx->GetAttr("fancy_upscaling", &flags_.fancy_upscaling));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("try_recover_truncated",
                                       &flags_.try_recover_truncated));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("acceptable_fraction",
                                       &flags_.min_acceptable_fraction));
      std::string dct;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("dct_method", &dct));
      OP_REQUIRES(
          ctx,
          dct.empty() || dct == "INTEGER_FAST" || dct == "INTEGER_ACCURATE",
          errors::InvalidArgument("dct_method must be one of "
                                  "{'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}"));
      // TF's default ('') is the fast integer DCT.
      flags_.dct_method = dct == "INTEGER_ACCURATE" ? JDCT_ISLOW : JDCT_IFAST;
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& contents = ctx->input(0);
    OP_REQUIRES(
        ctx, contents.shape().rank() == 0,
        errors::InvalidArgument("`contents` must be scalar but got shape",
                                contents.shape().ToString()));
    const std::string& input = contents.data<std::string>()[0];
    OP_REQUIRES(ctx, !input.empty(),
                errors::InvalidArgument("Input is empty."));
    OP_REQUIRES(
        ctx,
        input.size() <= static_cast<size_t>(std::numeric_limits<int>::max()),
        errors::InvalidArgument("Input contents are too large for int: ",
                                input.size()));
    const Format format = Classify(input);
    OP_REQUIRES(ctx, format != Format::kUnknown,
                errors::InvalidArgument("Unknown image file format. One of "
                                        "JPEG, PNG, GIF, BMP required."));
    if (op_ == "DecodeAndCropJpeg" && format != Format::kJpeg) {
      ctx->SetStatus(errors::InvalidArgument(
          "DecodeAndCropJpeg operation can run on JPEG only, but detected ",
          FormatName(format), "."));
      return;
    }
    if (op_ == "DecodeBmp" && format != Format::kBmp) {
      const std::string lower = format == Format::kJpeg  ? "jpeg"
                                : format == Format::kPng ? "png"
                                                         : "gif";
      ctx->SetStatus(
          errors::InvalidArgument("Trying to decode ", FormatName(format),
                                  " format using DecodeBmp op. Use `decode_",
                                  lower, "` or `decode_image` instead."));
      return;
    }
    switch (format) {
      case Format::kJpeg:
        DecodeJpeg(ctx, input);
        break;
      case Format::kPng:
        DecodePng(ctx, input);
        break;
      case Format::kGif:
        DecodeGif(ctx, input);
        break;
      default:
        DecodeBmp(ctx, input);
        break;
    }
  }

 private:
  // The output for an h x w x c image (DecodeGif: [1, h, w, c]).
  Status Allocate(OpKernelContext* ctx, int64_t h, int64_t w, int64_t c,
                  Tensor** out) {
    if (op_ == "DecodeGif") {
      return ctx->allocate_output(0, TensorShape({1, h, w, c}), out);
    }
    return ctx->allocate_output(0, TensorShape({h, w, c}), out);
  }

  // uint8 samples in `buf` to the output's dtype: uint16 * `scale16`, float
  // * 1/255.
  void FromUint8(const uint8_t* buf, Tensor* out, uint16_t scale16) {
    const int64_t n = out->num_elements();
    if (dtype_ == DT_UINT16) {
      uint16_t* o = out->data<uint16_t>();
      for (int64_t i = 0; i < n; ++i) o[i] = buf[i] * scale16;
    } else {
      float* o = out->data<float>();
      const float scale = 1.0f / 255.0f;
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<float>(buf[i]) * scale;
    }
  }

  void DecodeJpeg(OpKernelContext* ctx, const std::string& input) {
    OP_REQUIRES(ctx, channels_ != 4,
                errors::InvalidArgument("JPEG does not support 4 channels"));
    JpegFlags flags = flags_;
    flags.components = channels_;
    if (op_ == "DecodeAndCropJpeg") {
      flags.crop = true;
      const Tensor& window = ctx->input(1);
      OP_REQUIRES(ctx, window.shape().rank() == 1,
                  errors::InvalidArgument("crop_window must be 1-D, got shape ",
                                          window.shape().ToString()));
      OP_REQUIRES(ctx, window.shape().dim(0) == 4,
                  errors::InvalidArgument("crop_size must have four elements ",
                                          window.shape().ToString()));
      const int32_t* v = window.data<int32_t>();
      flags.crop_y = v[0];
      flags.crop_x = v[1];
      flags.crop_height = v[2];
      flags.crop_width = v[3];
    }
    Tensor* output = nullptr;
    std::unique_ptr<uint8_t[]> buffer;
    Status alloc_status;
    const bool ok = JpegUncompress(
        input, flags, [&](int width, int height, int channels) -> uint8_t* {
          alloc_status = Allocate(ctx, height, width, channels, &output);
          if (!alloc_status.ok()) return nullptr;
          if (dtype_ == DT_UINT8) return output->data<uint8_t>();
          buffer.reset(
              new uint8_t[static_cast<size_t>(height) * width * channels]);
          return buffer.get();
        });
    OP_REQUIRES_OK(ctx, alloc_status);
    OP_REQUIRES(ctx, ok,
                errors::InvalidArgument("jpeg::Uncompress failed. Invalid JPEG "
                                        "data or crop window."));
    if (dtype_ != DT_UINT8) FromUint8(buffer.get(), output, 256);
  }

  void DecodePng(OpKernelContext* ctx, const std::string& input) {
    const int bits = dtype_ == DT_UINT8 ? 8 : 16;
    PngDecode decode;
    OP_REQUIRES(
        ctx, PngInit(input, channels_, bits, &decode),
        errors::InvalidArgument("Invalid PNG. Failed to initialize decoder."));
    const int64_t width = decode.width, height = decode.height;
    const int64_t total = width * height;
    if (width <= 0 || width >= (int64_t{1} << 27) || height <= 0 ||
        height >= (int64_t{1} << 27) || total >= (int64_t{1} << 29)) {
      PngFree(&decode);
      ctx->SetStatus(errors::InvalidArgument(
          "PNG size too large for int: ", width, " by ", height));
      return;
    }
    Tensor* output = nullptr;
    Status s = Allocate(ctx, height, width, decode.channels, &output);
    if (!s.ok()) {
      PngFree(&decode);
      ctx->SetStatus(s);
      return;
    }
    const size_t row_bytes = decode.channels * width * (bits / 8);
    if (dtype_ != DT_FLOAT) {
      OP_REQUIRES(
          ctx,
          PngFinish(dtype_ == DT_UINT8
                        ? output->data<uint8_t>()
                        : reinterpret_cast<uint8_t*>(output->data<uint16_t>()),
                    row_bytes, &decode),
          errors::InvalidArgument("Invalid PNG data, size ", input.size()));
      return;
    }
    std::unique_ptr<uint16_t[]> buffer(
        new uint16_t[static_cast<size_t>(total) * decode.channels]);
    OP_REQUIRES(
        ctx,
        PngFinish(reinterpret_cast<uint8_t*>(buffer.get()), row_bytes, &decode),
        errors::InvalidArgument("Invalid PNG data, size ", input.size()));
    float* o = output->data<float>();
    const float scale = 1.0f / 65535.0f;
    for (int64_t i = 0; i < output->num_elements(); ++i) {
      o[i] = static_cast<float>(buffer[i]) * scale;
    }
  }

  void DecodeGif(OpKernelContext* ctx, const std::string& input) {
    OP_REQUIRES(ctx, channels_ == 0 || channels_ == 3,
                errors::InvalidArgument("channels must be 0 or 3 for GIF, got ",
                                        channels_));
    Tensor* output = nullptr;
    std::unique_ptr<uint8_t[]> buffer;
    Status alloc_status;
    std::string error;
    uint8_t* ok = GifDecode(
        input,
        [&](int frames, int width, int height, int channels) -> uint8_t* {
          if (op_ == "DecodePng" || op_ == "DecodeJpeg") {
            if (frames != 1) {
              alloc_status = errors::InvalidArgument(
                  "Got ", frames,
                  " frames, but animated gifs can only be decoded by "
                  "tf.io.decode_gif or tf.io.decode_image");
            } else {
              alloc_status = ctx->allocate_output(
                  0, TensorShape({height, width, channels}), &output);
            }
          } else if (op_ == "DecodeGif" || expand_) {
            alloc_status = ctx->allocate_output(
                0, TensorShape({frames, height, width, channels}), &output);
          } else {
            alloc_status = ctx->allocate_output(
                0, TensorShape({height, width, channels}), &output);
          }
          if (!alloc_status.ok()) return nullptr;
          if (dtype_ == DT_UINT8) return output->data<uint8_t>();
          buffer.reset(new uint8_t[static_cast<size_t>(frames) * height *
                                   width * channels]);
          return buffer.get();
        },
        &error, expand_ || op_ == "DecodeGif");
    OP_REQUIRES_OK(ctx, alloc_status);
    OP_REQUIRES(ctx, ok != nullptr,
                errors::InvalidArgument("Invalid GIF data (size ", input.size(),
                                        "), ", error));
    if (dtype_ != DT_UINT8) FromUint8(buffer.get(), output, 256);
  }

  void DecodeBmp(OpKernelContext* ctx, const std::string& input) {
    OP_REQUIRES(
        ctx, channels_ != 1,
        errors::InvalidArgument(
            "`channels` must be 0, 3 or 4 for BMP, but got ", channels_));
    OP_REQUIRES(ctx, op_ == "DecodeBmp" || op_ == "DecodeImage",
                errors::InvalidArgument(
                    "Trying to decode BMP format using a wrong op. Use "
                    "`decode_bmp` or `decode_image` instead. Op used: ",
                    op_));
    OP_REQUIRES(ctx, input.size() >= 32,
                errors::InvalidArgument(
                    "Incomplete bmp content, requires at least 32 bytes to "
                    "find the header size, width, height, and bpp, got ",
                    input.size(), " bytes"));
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(input.data());
    int32_t header_size, width, height;
    int16_t bpp;
    std::memcpy(&header_size, bytes + 10, 4);
    std::memcpy(&width, bytes + 18, 4);
    std::memcpy(&height, bytes + 22, 4);
    std::memcpy(&bpp, bytes + 28, 2);
    const int img_channels = bpp / 8;
    OP_REQUIRES(ctx,
                img_channels == 1 || img_channels == 3 || img_channels == 4,
                errors::InvalidArgument("Number of channels inherent in the "
                                        "image must be 1, 3 or 4, was ",
                                        img_channels));
    const int channels = channels_ ? channels_ : img_channels;
    OP_REQUIRES(ctx, width > 0,
                errors::InvalidArgument("Width must be positive"));
    OP_REQUIRES(ctx, height != 0,
                errors::InvalidArgument("Height must be nonzero"));
    OP_REQUIRES(ctx, header_size >= 0,
                errors::InvalidArgument("header size must be nonnegative"));
    const int64_t abs_height = height < 0 ? -int64_t{height} : height;
    OP_REQUIRES(
        ctx,
        int64_t{width} * abs_height < std::numeric_limits<int32_t>::max() / 8,
        errors::InvalidArgument(
            "Total possible pixel bytes must be less than 2^30"));
    const int64_t row_size = (int64_t{img_channels} * width + 3) / 4 * 4;
    const int64_t size_diff = static_cast<int64_t>(input.size()) - header_size -
                              row_size * abs_height;
    OP_REQUIRES(ctx, size_diff == 0,
                errors::InvalidArgument("Input size should match (header_size "
                                        "+ row_size * abs_height) but they "
                                        "differ by ",
                                        size_diff));
    const bool top_down = height < 0;
    Tensor* output = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({abs_height, width, channels}),
                                  &output));
    std::unique_ptr<uint8_t[]> buffer;
    uint8_t* dst = output->data<uint8_t>();
    if (dtype_ != DT_UINT8) {
      buffer.reset(new uint8_t[output->num_elements()]);
      dst = buffer.get();
    }
    const uint8_t* src = bytes + header_size;
    for (int64_t i = 0; i < abs_height; ++i) {
      const int64_t row = top_down ? i : abs_height - 1 - i;
      for (int64_t j = 0; j < width; ++j) {
        const uint8_t* s = src + row * row_size + j * img_channels;
        uint8_t* d = dst + (i * width + j) * channels;
        if (img_channels == 1) {
          d[0] = s[0];
          if (channels >= 3) d[1] = d[2] = s[0];
          if (channels == 4) d[3] = 255;
        } else {
          d[0] = s[2];
          d[1] = s[1];
          d[2] = s[0];
          if (channels == 4) d[3] = img_channels == 4 ? s[3] : 255;
        }
      }
    }
    if (dtype_ != DT_UINT8) FromUint8(buffer.get(), output, 256);
  }

  std::string op_;
  int channels_ = 0;
  DataType dtype_ = DT_UINT8;
  bool expand_ = true;
  JpegFlags flags_;
};

REGISTER_KERNEL(KernelDef("DecodePng"), DecodeImageOp);
REGISTER_KERNEL(KernelDef("DecodeJpeg"), DecodeImageOp);
REGISTER_KERNEL(KernelDef("DecodeAndCropJpeg"), DecodeImageOp);
REGISTER_KERNEL(KernelDef("DecodeGif"), DecodeImageOp);
REGISTER_KERNEL(KernelDef("DecodeBmp"), DecodeImageOp);
REGISTER_KERNEL(KernelDef("DecodeImage"), DecodeImageOp);

class EncodePngOp : public OpKernel {
 public:
  explicit EncodePngOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t compression = -1;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("compression", &compression));
    OP_REQUIRES(ctx, compression >= -1 && compression <= 9,
                errors::InvalidArgument("compression should be in [-1,9], got ",
                                        compression));
    compression_ = static_cast<int>(compression);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    OP_REQUIRES(ctx, image.shape().rank() == 3,
                errors::InvalidArgument("image must be 3-dimensional",
                                        image.shape().ToString()));
    const int64_t height = image.shape().dim(0), width = image.shape().dim(1),
                  channels = image.shape().dim(2);
    OP_REQUIRES(ctx, channels >= 1 && channels <= 4,
                errors::InvalidArgument(
                    "image must have 1, 2, 3, or 4 channels, got ", channels));
    OP_REQUIRES(
        ctx, image.num_elements() < std::numeric_limits<int32_t>::max(),
        errors::InvalidArgument("image cannot have >= int32 max elements"));
    // TF aborts here (a CHECK); a PNG cannot hold an empty image.
    OP_REQUIRES(ctx, height > 0 && width > 0,
                errors::InvalidArgument(
                    "image must have a positive height and width to be "
                    "encoded as PNG, got shape ",
                    image.shape().ToString()));
    const int bits = image.dtype() == DT_UINT16 ? 16 : 8;
    Tensor* output;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &output));
    std::string* out = output->data<std::string>();
    out->clear();
    const uint8_t* data =
        bits == 8 ? image.data<uint8_t>()
                  : reinterpret_cast<const uint8_t*>(image.data<uint16_t>());
    OP_REQUIRES(
        ctx,
        PngEncode(data, static_cast<int>(width), static_cast<int>(height),
                  width * channels * (bits / 8), static_cast<int>(channels),
                  bits, compression_, out),
        errors::Internal("PNG encoding failed"));
  }

 private:
  int compression_ = -1;
};

REGISTER_KERNEL(KernelDef("EncodePng"), EncodePngOp);

// The checks of TF's EncodeJpegOp on a [height, width, channels] image.
Status CheckJpegImage(const Tensor& image) {
  if (image.shape().rank() != 3) {
    return errors::InvalidArgument("image must be 3-dimensional",
                                   image.shape().ToString());
  }
  if (image.num_elements() >= std::numeric_limits<int32_t>::max()) {
    return errors::InvalidArgument(
        "Cannot encode images with >= max int32 elements");
  }
  return Status::OK();
}

class EncodeJpegOp : public OpKernel {
 public:
  explicit EncodeJpegOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t quality = 95, x = 300, y = 300;
    std::string unit;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("format", &format_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("quality", &quality));
    OP_REQUIRES(
        ctx, quality >= 0 && quality <= 100,
        errors::InvalidArgument("quality must be in [0,100], got ", quality));
    flags_.quality = static_cast<int>(quality);
    OP_REQUIRES_OK(ctx, ctx->GetAttr("progressive", &flags_.progressive));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("optimize_size", &flags_.optimize_size));
    OP_REQUIRES_OK(
        ctx, ctx->GetAttr("chroma_downsampling", &flags_.chroma_downsampling));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("density_unit", &unit));
    OP_REQUIRES(ctx, unit == "in" || unit == "cm",
                errors::InvalidArgument(
                    "density_unit must be 'in' or 'cm', got ", unit));
    flags_.density_unit = unit == "in" ? 1 : 2;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("x_density", &x));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("y_density", &y));
    OP_REQUIRES(ctx, x >= 0 && x <= 65535 && y >= 0 && y <= 65535,
                errors::InvalidArgument(
                    "x_density and y_density must be in [0, 65535], got ", x,
                    " and ", y));
    flags_.x_density = static_cast<int>(x);
    flags_.y_density = static_cast<int>(y);
    std::string xmp_metadata;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("xmp_metadata", &xmp_metadata));
    if (!xmp_metadata.empty()) {
      xmp_ = std::string("http://ns.adobe.com/xap/1.0/") + '\0' + xmp_metadata;
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckJpegImage(image));
    const int64_t channels = image.shape().dim(2);
    if (format_.empty()) {
      OP_REQUIRES(
          ctx, channels == 1 || channels == 3,
          errors::InvalidArgument("image must have 1 or 3 channels, got ",
                                  image.shape().ToString()));
    } else {
      const int64_t want = format_ == "grayscale" ? 1 : 3;
      OP_REQUIRES(
          ctx, channels == want,
          errors::InvalidArgument("format ", format_, " expects ", want,
                                  " channels, got ", image.shape().ToString()));
    }
    Tensor* output;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &output));
    std::string* out = output->data<std::string>();
    out->clear();
    OP_REQUIRES(ctx,
                JpegCompress(image.data<uint8_t>(),
                             static_cast<int>(image.shape().dim(1)),
                             static_cast<int>(image.shape().dim(0)),
                             static_cast<int>(channels), flags_, xmp_, out),
                errors::Internal("JPEG encoding failed"));
  }

 private:
  std::string format_;
  std::string xmp_;
  JpegCompressFlags flags_;
};

REGISTER_KERNEL(KernelDef("EncodeJpeg"), EncodeJpegOp);

class EncodeJpegVariableQualityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckJpegImage(image));
    const Tensor& quality_t = ctx->input(1);
    OP_REQUIRES(ctx, quality_t.shape().rank() == 0,
                errors::InvalidArgument("quality must be scalar: ",
                                        quality_t.shape().ToString()));
    const int32_t quality = quality_t.data<int32_t>()[0];
    OP_REQUIRES(
        ctx, quality >= 0 && quality <= 100,
        errors::InvalidArgument("quality must be in [0,100], got ", quality));
    const int64_t channels = image.shape().dim(2);
    OP_REQUIRES(ctx, channels == 1 || channels == 3,
                errors::InvalidArgument("image must have 1 or 3 channels, got ",
                                        image.shape().ToString()));
    JpegCompressFlags flags;
    flags.quality = quality;
    Tensor* output;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &output));
    std::string* out = output->data<std::string>();
    out->clear();
    OP_REQUIRES(ctx,
                JpegCompress(image.data<uint8_t>(),
                             static_cast<int>(image.shape().dim(1)),
                             static_cast<int>(image.shape().dim(0)),
                             static_cast<int>(channels), flags, "", out),
                errors::Internal("JPEG encoding failed"));
  }
};

REGISTER_KERNEL(KernelDef("EncodeJpegVariableQuality"),
                EncodeJpegVariableQualityOp);

class ExtractJpegShapeOp : public OpKernel {
 public:
  explicit ExtractJpegShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_type", &type_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& contents = ctx->input(0);
    OP_REQUIRES(ctx, contents.shape().rank() == 0,
                errors::InvalidArgument("contents must be scalar, got shape ",
                                        contents.shape().ToString()));
    const std::string& input = contents.data<std::string>()[0];
    int width = 0, height = 0, components = 0;
    OP_REQUIRES(
        ctx, JpegImageInfo(input, &width, &height, &components),
        errors::InvalidArgument("Invalid JPEG data, size ", input.size()));
    Tensor* output;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({3}), &output));
    const int64_t dims[3] = {height, width, components};
    for (int i = 0; i < 3; ++i) {
      if (type_ == DT_INT32) {
        output->data<int32_t>()[i] = static_cast<int32_t>(dims[i]);
      } else {
        output->data<int64_t>()[i] = dims[i];
      }
    }
  }

 private:
  DataType type_ = DT_INT32;
};

REGISTER_KERNEL(KernelDef("ExtractJpegShape"), ExtractJpegShapeOp);

// TF's DrawBoundingBoxesOp: box outlines, one color per box (cycled), boxes
// inverted or wholly outside the image skipped.
class DrawBoundingBoxesOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    OP_REQUIRES(ctx, images.shape().rank() == 4,
                errors::InvalidArgument("The rank of the images should be 4"));
    const int64_t batch = images.shape().dim(0), height = images.shape().dim(1),
                  width = images.shape().dim(2), depth = images.shape().dim(3);
    OP_REQUIRES(ctx, depth == 1 || depth == 3 || depth == 4,
                errors::InvalidArgument("Channel depth should be either 1 "
                                        "(GRY), 3 (RGB), or 4 (RGBA)"));
    OP_REQUIRES(ctx,
                boxes.shape().rank() == 3 && boxes.shape().dim(2) == 4 &&
                    boxes.shape().dim(0) == batch,
                errors::InvalidArgument(
                    "boxes must be [batch, num_boxes, 4] with the images' "
                    "batch ",
                    batch, ", got ", boxes.shape().ToString()));
    std::vector<std::array<float, 4>> colors;
    if (ctx->num_inputs() == 3) {
      const Tensor& t = ctx->input(2);
      OP_REQUIRES(ctx, t.shape().rank() == 2,
                  errors::InvalidArgument("colors must be a 2-D matrix",
                                          t.shape().ToString()));
      OP_REQUIRES(ctx, t.shape().dim(1) >= depth,
                  errors::InvalidArgument("colors must have equal or more "
                                          "channels than the image provided: ",
                                          t.shape().ToString()));
      OP_REQUIRES(ctx, t.num_elements() != 0,
                  errors::InvalidArgument("colors must not be empty"));
      const int64_t cols = t.shape().dim(1);
      for (int64_t i = 0; i < t.shape().dim(0); ++i) {
        std::array<float, 4> c = {0, 0, 0, 0};
        for (int64_t j = 0; j < 4 && j < cols; ++j) {
          c[j] = t.data<float>()[i * cols + j];
        }
        colors.push_back(c);
      }
    }
    if (colors.empty()) {
      colors = {{1, 1, 0, 1},   {0, 0, 1, 1},     {1, 0, 0, 1},
                {0, 1, 0, 1},   {0.5, 0, 0.5, 1}, {0.5, 0.5, 0, 1},
                {0.5, 0, 0, 1}, {0, 0, 0.5, 1},   {0, 1, 1, 1},
                {1, 0, 1, 1}};
      if (depth == 1) {
        for (auto& c : colors) c[0] = 1;
      }
    }
    Tensor* output;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, images.shape(), &output));
    if (images.dtype() == DT_HALF) {
      Draw<half>(images, boxes, colors, output);
    } else {
      Draw<float>(images, boxes, colors, output);
    }
  }

 private:
  template <typename T>
  static void Draw(const Tensor& images, const Tensor& boxes,
                   const std::vector<std::array<float, 4>>& colors,
                   Tensor* output) {
    const int64_t batch = images.shape().dim(0), height = images.shape().dim(1),
                  width = images.shape().dim(2), depth = images.shape().dim(3);
    std::memcpy(output->data<T>(), images.data<T>(),
                images.num_elements() * sizeof(T));
    T* canvas = output->data<T>();
    auto at = [&](int64_t b, int64_t i, int64_t j) {
      return canvas + ((b * height + i) * width + j) * depth;
    };
    const int64_t num_boxes = boxes.shape().dim(1);
    const float* tb = boxes.data<float>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t bb = 0; bb < num_boxes; ++bb) {
        const auto& color = colors[bb % colors.size()];
        const float* box = tb + (b * num_boxes + bb) * 4;
        const int64_t min_row =
            static_cast<int64_t>(box[0] * static_cast<float>(height - 1));
        const int64_t max_row =
            static_cast<int64_t>(box[2] * static_cast<float>(height - 1));
        const int64_t min_col =
            static_cast<int64_t>(box[1] * static_cast<float>(width - 1));
        const int64_t max_col =
            static_cast<int64_t>(box[3] * static_cast<float>(width - 1));
        if (min_row > max_row || min_col > max_col) continue;
        if (min_row >= height || max_row < 0 || min_col >= width ||
            max_col < 0) {
          continue;
        }
        const int64_t min_row_c = std::max<int64_t>(min_row, 0);
        const int64_t max_row_c = std::min<int64_t>(max_row, height - 1);
        const int64_t min_col_c = std::max<int64_t>(min_col, 0);
        const int64_t max_col_c = std::min<int64_t>(max_col, width - 1);
        auto paint = [&](int64_t i, int64_t j) {
          T* p = at(b, i, j);
          for (int64_t c = 0; c < depth; ++c) p[c] = static_cast<T>(color[c]);
        };
        if (min_row >= 0) {
          for (int64_t j = min_col_c; j <= max_col_c; ++j) paint(min_row, j);
        }
        if (max_row < height) {
          for (int64_t j = min_col_c; j <= max_col_c; ++j) paint(max_row, j);
        }
        if (min_col >= 0) {
          for (int64_t i = min_row_c; i <= max_row_c; ++i) paint(i, min_col);
        }
        if (max_col < width) {
          for (int64_t i = min_row_c; i <= max_row_c; ++i) paint(i, max_col);
        }
      }
    }
  }
};

REGISTER_KERNEL(KernelDef("DrawBoundingBoxes"), DrawBoundingBoxesOp);
REGISTER_KERNEL(KernelDef("DrawBoundingBoxesV2"), DrawBoundingBoxesOp);

// ------------------------------------------------------------------ NMS ----

// TF's IOU (non_max_suppression_op.cc): corners in either order; 0 for an
// empty box.
float BoxIou(const float* b, int64_t i, int64_t j) {
  const float* p = b + 4 * i;
  const float* q = b + 4 * j;
  const float ymin_i = std::min(p[0], p[2]), xmin_i = std::min(p[1], p[3]);
  const float ymax_i = std::max(p[0], p[2]), xmax_i = std::max(p[1], p[3]);
  const float ymin_j = std::min(q[0], q[2]), xmin_j = std::min(q[1], q[3]);
  const float ymax_j = std::max(q[0], q[2]), xmax_j = std::max(q[1], q[3]);
  const float area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i);
  const float area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
  if (area_i <= 0 || area_j <= 0) return 0.0f;
  const float iy =
      std::max(std::min(ymax_i, ymax_j) - std::max(ymin_i, ymin_j), 0.0f);
  const float ix =
      std::max(std::min(xmax_i, xmax_j) - std::max(xmin_i, xmin_j), 0.0f);
  const float inter = iy * ix;
  return inter / (area_i + area_j - inter);
}

// TF's DoNonMaxSuppressionOp: candidates by descending score (ties: lower
// index first); hard suppression above the threshold, or Soft-NMS decay.
void SuppressGreedily(int64_t n, const std::vector<float>& scores,
                      int output_size, float threshold, float score_threshold,
                      float soft_nms_sigma,
                      const std::function<float(int64_t, int64_t)>& similarity,
                      std::vector<int>* selected,
                      std::vector<float>* selected_scores) {
  struct Candidate {
    int index;
    float score;
    int suppress_begin;
  };
  auto cmp = [](const Candidate& a, const Candidate& b) {
    return (a.score == b.score && a.index > b.index) || a.score < b.score;
  };
  std::priority_queue<Candidate, std::deque<Candidate>, decltype(cmp)> queue(
      cmp);
  for (int64_t i = 0; i < n; ++i) {
    if (scores[i] > score_threshold) {
      queue.push(Candidate{static_cast<int>(i), scores[i], 0});
    }
  }
  const bool soft = soft_nms_sigma > 0.0f;
  const float scale = soft ? -0.5f / soft_nms_sigma : 0.0f;
  auto weight = [&](float sim) {
    const float w = std::exp(scale * sim * sim);
    return soft || sim <= threshold ? w : 0.0f;
  };
  while (static_cast<int>(selected->size()) < output_size && !queue.empty()) {
    Candidate next = queue.top();
    const float original = next.score;
    queue.pop();
    bool hard = false;
    for (int j = static_cast<int>(selected->size()) - 1;
         j >= next.suppress_begin; --j) {
      const float sim = similarity(next.index, (*selected)[j]);
      next.score *= weight(sim);
      if (!soft && sim > threshold) {
        hard = true;
        break;
      }
      if (next.score <= score_threshold) break;
    }
    next.suppress_begin = static_cast<int>(selected->size());
    if (!hard) {
      if (next.score == original) {
        selected->push_back(next.index);
        selected_scores->push_back(next.score);
        continue;
      }
      if (next.score > score_threshold) queue.push(next);
    }
  }
}

float ScalarAsFloat(const Tensor& t) {
  return t.dtype() == DT_HALF ? static_cast<float>(t.data<half>()[0])
                              : t.data<float>()[0];
}

std::vector<float> AsFloats(const Tensor& t) {
  std::vector<float> v(t.num_elements());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    v[i] = t.dtype() == DT_HALF ? static_cast<float>(t.data<half>()[i])
                                : t.data<float>()[i];
  }
  return v;
}

// NonMaxSuppressionV4 / V5 / WithOverlaps.
class NonMaxSuppressionOp : public OpKernel {
 public:
  explicit NonMaxSuppressionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    op_ = ctx->node().type_string();
    if (op_ != "NonMaxSuppressionWithOverlaps") {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("pad_to_max_output_size", &pad_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const bool overlaps = op_ == "NonMaxSuppressionWithOverlaps";
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    const Tensor& max_output_size = ctx->input(2);
    OP_REQUIRES(
        ctx, max_output_size.shape().rank() == 0,
        errors::InvalidArgument("max_output_size must be 0-D, got shape ",
                                max_output_size.shape().ToString()));
    for (int i = 3; i < ctx->num_inputs(); ++i) {
      OP_REQUIRES(
          ctx, ctx->input(i).shape().rank() == 0,
          errors::InvalidArgument("input ", i, " must be 0-D, got shape ",
                                  ctx->input(i).shape().ToString()));
    }
    const float threshold = ScalarAsFloat(ctx->input(3));
    const float score_threshold = ScalarAsFloat(ctx->input(4));
    float sigma = 0.0f;
    if (op_ == "NonMaxSuppressionV5") {
      sigma = ScalarAsFloat(ctx->input(5));
      OP_REQUIRES(ctx, sigma >= 0.0f,
                  errors::InvalidArgument("soft_nms_sigma must be >= 0"));
    }
    if (!overlaps) {
      OP_REQUIRES(ctx, threshold >= 0.0f && threshold <= 1.0f,
                  errors::InvalidArgument("iou_threshold must be in [0, 1]"));
    }
    OP_REQUIRES(
        ctx, boxes.shape().rank() == 2,
        errors::InvalidArgument(overlaps ? "overlaps" : "boxes", " must be 2-D",
                                boxes.shape().ToString()));
    const int64_t n = boxes.shape().dim(0);
    OP_REQUIRES(
        ctx, overlaps ? boxes.shape().dim(1) == n : boxes.shape().dim(1) == 4,
        errors::InvalidArgument(overlaps ? "overlaps must be square, got "
                                         : "boxes must have 4 columns, got ",
                                boxes.shape().ToString()));
    OP_REQUIRES(ctx, scores.shape().rank() == 1 && scores.shape().dim(0) == n,
                errors::InvalidArgument("scores has incompatible shape ",
                                        scores.shape().ToString(), " for ", n,
                                        " boxes"));
    const int output_size = max_output_size.data<int32_t>()[0];
    OP_REQUIRES(
        ctx, output_size >= 0,
        errors::InvalidArgument("max_output_size must be non-negative"));
    const std::vector<float> box_values = AsFloats(boxes);
    std::function<float(int64_t, int64_t)> similarity;
    if (overlaps) {
      similarity = [&](int64_t i, int64_t j) { return box_values[i * n + j]; };
    } else {
      similarity = [&](int64_t i, int64_t j) {
        return BoxIou(box_values.data(), i, j);
      };
    }
    std::vector<int> selected;
    std::vector<float> selected_scores;
    SuppressGreedily(n, AsFloats(scores), output_size, threshold,
                     score_threshold, sigma, similarity, &selected,
                     &selected_scores);
    const int valid = static_cast<int>(selected.size());
    if (pad_) {
      selected.resize(output_size, 0);
      selected_scores.resize(output_size, 0.0f);
    }
    const int64_t count = static_cast<int64_t>(selected.size());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({count}), &out));
    std::copy(selected.begin(), selected.end(), out->data<int32_t>());
    int next = 1;
    if (op_ == "NonMaxSuppressionV5") {
      Tensor* s;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({count}), &s));
      for (int64_t i = 0; i < count; ++i) {
        if (s->dtype() == DT_HALF) {
          s->data<half>()[i] = half(selected_scores[i]);
        } else {
          s->data<float>()[i] = selected_scores[i];
        }
      }
      next = 2;
    }
    if (!overlaps) {
      Tensor* v;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(next, TensorShape({}), &v));
      v->data<int32_t>()[0] = valid;
    }
  }

 private:
  std::string op_;
  bool pad_ = false;
};

REGISTER_KERNEL(KernelDef("NonMaxSuppressionV4"), NonMaxSuppressionOp);
REGISTER_KERNEL(KernelDef("NonMaxSuppressionV5"), NonMaxSuppressionOp);
REGISTER_KERNEL(KernelDef("NonMaxSuppressionWithOverlaps"),
                NonMaxSuppressionOp);

}  // namespace
}  // namespace tensorweave
